import { cloneJson, isJsonObject, jsonEqual, setOwn } from '../json-value.js';
import { badRequest, KubeApiError } from './kube-status.js';

/**
 * RFC 6902 JSON Patch: add, remove, replace, move, copy and test, addressed by RFC 6901 JSON
 * Pointers. The whole patch applies or none of it does.
 */

interface Operation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

const OPERATIONS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** A patch that does not apply to the document: 422, naming the operation. */
function notApplicable(index: number, operation: Operation, problem: string): KubeApiError {
  const message = `the JSON patch operation ${index} (${operation.op} ${operation.path}) ${problem}`;
  return new KubeApiError(422, 'Invalid', message, {
    causes: [{ field: operation.path, reason: 'FieldValueInvalid', message }],
  });
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw badRequest(`"${pointer}" is not a JSON pointer: it must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function decode(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) throw badRequest('a JSON patch must be an array of operations');
  return patch.map((entry: unknown, index) => {
    if (!isJsonObject(entry) || typeof entry.op !== 'string' || !OPERATIONS.has(entry.op)) {
      throw badRequest(`JSON patch operation ${index} must have an "op" of ${[...OPERATIONS].join(', ')}`);
    }
    if (typeof entry.path !== 'string') throw badRequest(`JSON patch operation ${index} has no "path"`);
    parsePointer(entry.path);
    if ((entry.op === 'move' || entry.op === 'copy') && typeof entry.from !== 'string') {
      throw badRequest(`JSON patch operation ${index} (${entry.op}) has no "from"`);
    }
    if ((entry.op === 'add' || entry.op === 'replace' || entry.op === 'test') && !('value' in entry)) {
      throw badRequest(`JSON patch operation ${index} (${entry.op}) has no "value"`);
    }
    return entry as unknown as Operation;
  });
}

function arrayIndex(token: string, length: number, allowEnd: boolean): number | undefined {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
  const index = Number(token);
  return index < length || (allowEnd && index === length) ? index : undefined;
}

class Document {
  constructor(public root: unknown) {}

  get(tokens: string[]): { found: boolean; value?: unknown } {
    let current: unknown = this.root;
    for (const token of tokens) {
      if (Array.isArray(current)) {
        const index = arrayIndex(token, current.length, false);
        if (index === undefined) return { found: false };
        current = current[index];
      } else if (isJsonObject(current) && Object.hasOwn(current, token)) {
        current = current[token];
      } else {
        return { found: false };
      }
    }
    return { found: true, value: current };
  }

  /** Inserts (arrays) or sets (objects) `value` at `tokens`; false when the parent is missing. */
  add(tokens: string[], value: unknown): boolean {
    if (tokens.length === 0) {
      this.root = value;
      return true;
    }
    const parent = this.get(tokens.slice(0, -1));
    const last = tokens[tokens.length - 1] ?? '';
    if (!parent.found) return false;
    if (Array.isArray(parent.value)) {
      const index = arrayIndex(last, parent.value.length, true);
      if (index === undefined) return false;
      parent.value.splice(index, 0, value);
      return true;
    }
    if (!isJsonObject(parent.value)) return false;
    setOwn(parent.value, last, value);
    return true;
  }

  remove(tokens: string[]): boolean {
    if (tokens.length === 0) return false;
    const parent = this.get(tokens.slice(0, -1));
    const last = tokens[tokens.length - 1] ?? '';
    if (!parent.found) return false;
    if (Array.isArray(parent.value)) {
      const index = arrayIndex(last, parent.value.length, false);
      if (index === undefined) return false;
      parent.value.splice(index, 1);
      return true;
    }
    if (!isJsonObject(parent.value) || !Object.hasOwn(parent.value, last)) return false;
    delete parent.value[last];
    return true;
  }
}

/** Applies `patch` to a copy of `target` and answers the result; `target` is left as it was. */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  const operations = decode(patch);
  const document = new Document(cloneJson(target));
  operations.forEach((operation, index) => {
    const path = parsePointer(operation.path);
    const fail = (problem: string): never => {
      throw notApplicable(index, operation, problem);
    };
    switch (operation.op) {
      case 'add':
        if (!document.add(path, cloneJson(operation.value))) fail('has no parent to add to');
        break;
      case 'remove':
        if (!document.remove(path)) fail('names nothing to remove');
        break;
      case 'replace':
        if (!document.get(path).found) fail('names nothing to replace');
        if (path.length === 0) document.root = cloneJson(operation.value);
        else {
          document.remove(path);
          document.add(path, cloneJson(operation.value));
        }
        break;
      case 'move': {
        const from = parsePointer(operation.from ?? '');
        const source = document.get(from);
        if (!source.found) fail(`moves from ${operation.from}, which does not exist`);
        if (path.length > from.length && from.every((token, position) => path[position] === token)) {
          fail(`cannot move ${operation.from} into itself`);
        }
        document.remove(from);
        if (!document.add(path, source.value)) fail('has no parent to move to');
        break;
      }
      case 'copy': {
        const source = document.get(parsePointer(operation.from ?? ''));
        if (!source.found) fail(`copies from ${operation.from}, which does not exist`);
        if (!document.add(path, cloneJson(source.value))) fail('has no parent to copy to');
        break;
      }
      case 'test': {
        const current = document.get(path);
        if (!current.found || !jsonEqual(current.value, operation.value)) {
          fail(`test failed: the value is ${JSON.stringify(current.value) ?? 'missing'}`);
        }
        break;
      }
    }
  });
  return document.root;
}
