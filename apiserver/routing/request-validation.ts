import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { badRequest, unprocessable } from '../errors.js';
import type { RequestSchemas } from './route.js';

export type RequestPart = 'params' | 'query' | 'body';

/** One rule one field broke; a 400 lists them all in `details.fields`. */
export interface FieldProblem {
  in: RequestPart;
  /** Dotted path with array indexes, such as `rules[2].port_range`; the part itself when empty. */
  field: string;
  /** The JSON Schema keyword: `required`, `type`, `enum`, `maximum`, `additionalProperties`, … */
  rule: string;
  message: string;
  /**
   * Set while validating when the rule is one of the domain's (`x-domain-rule`): alone, such
   * problems are a 422. Not part of the answer.
   */
  domain?: true;
}

export interface RequestInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

export type RequestValidator = (input: RequestInput) => RequestInput;

/** How many problems the message lists; `details.fields` always has all of them. */
const PROBLEMS_IN_MESSAGE = 5;

function newAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    allowUnionTypes: true,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: coerce ? 'all' : false,
    // Errors carry the schema that failed, whose `x-domain-rule` tells a 422 from a 400.
    verbose: true,
  });
  ajv.addKeyword(DOMAIN_RULE);
  ajvFormats.default(ajv);
  return ajv;
}

const DOMAIN_RULE = 'x-domain-rule';

/** A value of the right type that a domain rule refuses (see `JsonSchema['x-domain-rule']`). */
function breaksDomainRule(error: ErrorObject): boolean {
  const schema = error.parentSchema as Record<string, unknown> | undefined;
  return error.keyword !== 'type' && schema?.[DOMAIN_RULE] === true;
}

function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  return segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
}

function describe(part: RequestPart, error: ErrorObject): FieldProblem {
  const problem = describeRule(part, error);
  return breaksDomainRule(error) ? { ...problem, domain: true } : problem;
}

function describeRule(part: RequestPart, error: ErrorObject): FieldProblem {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const field = fieldPath(error.instancePath, String(params.missingProperty));
      return { in: part, field, rule: 'required', message: `${field} is required` };
    }
    case 'additionalProperties': {
      const field = fieldPath(error.instancePath, String(params.additionalProperty));
      return { in: part, field, rule: 'additionalProperties', message: `${field} is not an accepted field` };
    }
    case 'enum': {
      const field = fieldPath(error.instancePath) || part;
      const allowed = (params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ');
      return { in: part, field, rule: 'enum', message: `${field} must be one of ${allowed}` };
    }
    default: {
      const field = fieldPath(error.instancePath) || part;
      return { in: part, field, rule: error.keyword, message: `${field} ${error.message ?? 'is invalid'}` };
    }
  }
}

function summary(problems: readonly FieldProblem[]): string {
  const listed = problems.slice(0, PROBLEMS_IN_MESSAGE).map((problem) => problem.message);
  const more = problems.length - listed.length;
  return `invalid request: ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

/**
 * Compiles route schemas into validators. Path and query values are coerced from strings and get
 * their defaults, undeclared query parameters are dropped; bodies are checked as sent. A request
 * that breaks its schema is a 400; one whose only problems break domain rules (`x-domain-rule`:
 * an unknown tier or engine, a value past a limit) is a 422; both list every problem's field.
 */
export class RequestValidation {
  private readonly stringInputs = newAjv(true);
  private readonly bodies = newAjv(false);

  /**
   * Compiles on the route's first request: compiling every route's schemas took a third of
   * start-up. The hardening tests send every operation of the OpenAPI document a request, so a
   * schema ajv rejects fails there.
   */
  compile(schemas: RequestSchemas = {}): RequestValidator {
    // Only the parts the route declares a schema for: most routes take no query, many no body.
    let parts: { part: RequestPart; validate: ValidateFunction }[] | undefined;
    const compiled = () => {
      if (parts) return parts;
      parts = [];
      if (schemas.params) parts.push({ part: 'params', validate: this.stringInputs.compile(schemas.params) });
      if (schemas.query) parts.push({ part: 'query', validate: this.stringInputs.compile(schemas.query) });
      if (schemas.body) parts.push({ part: 'body', validate: this.bodies.compile(schemas.body) });
      return parts;
    };
    return (input) => {
      const validated: RequestInput = {
        params: { ...input.params },
        query: { ...input.query },
        body: input.body,
      };
      const validators = compiled();
      if (validators.length === 0) return validated;
      let problems: FieldProblem[] | undefined;
      for (let i = 0; i < validators.length; i++) {
        const { part, validate } = validators[i]!;
        if (!validate(validated[part])) {
          problems ??= [];
          for (const error of validate.errors ?? []) problems.push(describe(part, error));
        }
      }
      if (problems === undefined || problems.length === 0) return validated;
      const fields = problems.map(({ domain: _domain, ...problem }) => problem);
      if (problems.every((problem) => problem.domain))
        throw unprocessable(summary(problems), { details: { fields } });
      throw badRequest(summary(problems), { details: { fields } });
    };
  }
}
