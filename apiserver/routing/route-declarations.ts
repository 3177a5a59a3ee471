import { areaOfPath } from './areas.js';
import type { AreaServices, RouteDefinition, RouteModule } from './route.js';
import { compareSpecificity, pathParameterNames, templateProblem, templateShape } from './route-paths.js';

/** Route modules that contradict themselves or each other; raised at start-up, listing every problem. */
export class RouteDeclarationError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid route declarations:\n- ${problems.join('\n- ')}`);
    this.name = 'RouteDeclarationError';
  }
}

function problemsOf(module: RouteModule<never>, route: RouteDefinition<never>): string[] {
  const name = `${route.method.toUpperCase()} ${route.path}`;
  const problems: string[] = [];
  const syntax = templateProblem(route.path);
  if (syntax) problems.push(`${name}: path ${syntax}`);
  if (route.area !== module.area)
    problems.push(`${name}: declared in area ${route.area}, module is ${module.area}`);
  const owner = areaOfPath(route.path);
  if (owner !== route.area)
    problems.push(`${name}: path belongs to area ${owner ?? 'none'}, not ${route.area}`);
  const inPath = pathParameterNames(route.path).sort();
  const declared = Object.keys(route.request?.params?.properties ?? {}).sort();
  if (inPath.join() !== declared.join()) {
    problems.push(
      `${name}: path parameters [${inPath.join(', ')}] but params schema [${declared.join(', ')}]`,
    );
  }
  if (route.auth === 'public' && (route.scopes?.length ?? 0) > 0) {
    problems.push(`${name}: a public route cannot require scopes`);
  }
  if (Object.keys(route.responses).length === 0) problems.push(`${name}: declares no responses`);
  return problems;
}

/**
 * Checks every module and answers their routes in matching order (most specific template
 * first). Throws `RouteDeclarationError` on the first start-up that would serve a broken API.
 */
export function collectRoutes<A extends AreaServices>(
  modules: readonly RouteModule<A>[],
): RouteDefinition<A>[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const routes: RouteDefinition<A>[] = [];
  for (const module of modules) {
    for (const route of module.routes) {
      problems.push(...problemsOf(module, route));
      const key = `${route.method} ${templateShape(route.path)}`;
      if (seen.has(key)) problems.push(`${route.method.toUpperCase()} ${route.path}: declared twice`);
      seen.add(key);
      routes.push(route);
    }
  }
  if (problems.length > 0) throw new RouteDeclarationError(problems);
  return routes.sort((a, b) => compareSpecificity(a.path, b.path));
}
