import { isJsonObject, jsonEqual } from '../json-value.js';

/**
 * The simple JSONPath of CRD printer columns: `.spec.cidrBlock`, `.items[0].name`,
 * `.metadata.labels['app.kubernetes.io/name']` and one equality filter such as
 * `.status.conditions[?(@.type=="Ready")].status`. Answers the first value found, or undefined.
 */

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'filter'; path: string[]; value: unknown };

const FIELD = /^\.([A-Za-z0-9_$-]+)/;
const QUOTED = /^\[\s*'([^']*)'\s*\]|^\[\s*"([^"]*)"\s*\]/;
const INDEX = /^\[(-?\d+)\]/;
const FILTER = /^\[\?\(@((?:\.[A-Za-z0-9_$-]+)+)\s*==\s*(?:"([^"]*)"|'([^']*)'|([^)\s]+))\s*\)\]/;

function parse(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let rest = path
    .trim()
    .replace(/^\{(.*)\}$/, '$1')
    .replace(/^\$/, '');
  while (rest.length > 0) {
    let match: RegExpExecArray | null;
    if ((match = FIELD.exec(rest))) steps.push({ kind: 'field', name: match[1] ?? '' });
    else if ((match = QUOTED.exec(rest))) steps.push({ kind: 'field', name: match[1] ?? match[2] ?? '' });
    else if ((match = INDEX.exec(rest))) steps.push({ kind: 'index', index: Number(match[1]) });
    else if ((match = FILTER.exec(rest))) {
      const literal = match[2] ?? match[3] ?? match[4] ?? '';
      let value: unknown = literal;
      if (match[4] !== undefined) {
        try {
          value = JSON.parse(literal) as unknown;
        } catch {
          value = literal;
        }
      }
      steps.push({ kind: 'filter', path: (match[1] ?? '').split('.').slice(1), value });
    } else return undefined;
    rest = rest.slice(match[0].length);
  }
  return steps;
}

function fieldOf(value: unknown, name: string): unknown {
  return isJsonObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;
}

/** The value at `path` in `object`; undefined when absent or when the path is not one this evaluator reads. */
export function evaluateJsonPath(object: unknown, path: string): unknown {
  const steps = parse(path);
  if (steps === undefined) return undefined;
  let current: unknown = object;
  for (const step of steps) {
    if (step.kind === 'field') current = fieldOf(current, step.name);
    else if (step.kind === 'index') {
      if (!Array.isArray(current)) return undefined;
      current = current[step.index < 0 ? current.length + step.index : step.index];
    } else {
      if (!Array.isArray(current)) return undefined;
      current = current.find((item) => jsonEqual(step.path.reduce(fieldOf, item), step.value));
    }
    if (current === undefined) return undefined;
  }
  return current;
}
