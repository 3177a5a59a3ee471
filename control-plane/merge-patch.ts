import { isJsonObject, setOwn, type JsonObject } from './json-value.js';

/**
 * Applies an RFC 7386 JSON merge patch: objects merge key by key, `null` removes a key, anything
 * else (arrays included) replaces the target value. Neither argument is modified.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return structuredClone(patch);
  const result: JsonObject = {};
  if (isJsonObject(target)) {
    for (const [key, value] of Object.entries(target)) setOwn(result, key, structuredClone(value));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, applyMergePatch(result[key], value));
  }
  return result;
}
