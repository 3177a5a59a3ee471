import { VaultError } from './vault-error.js';

export const CAPABILITIES = ['create', 'read', 'update', 'patch', 'delete', 'list', 'sudo', 'deny'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** One `path "<pattern>" { capabilities = [...] }` block. */
export interface PathRule {
  pattern: string;
  capabilities: Capability[];
}

interface Token {
  kind: 'string' | 'word' | 'symbol';
  value: string;
  line: number;
}

function syntaxError(line: number, message: string): VaultError {
  return new VaultError('invalid', `policy rules, line ${line}: ${message}`);
}

function tokenize(rules: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let index = 0;
  while (index < rules.length) {
    const char = rules[index]!;
    if (char === '\n') {
      line += 1;
      index += 1;
    } else if (/\s/.test(char)) {
      index += 1;
    } else if (char === '#' || rules.startsWith('//', index)) {
      while (index < rules.length && rules[index] !== '\n') index += 1;
    } else if (rules.startsWith('/*', index)) {
      const end = rules.indexOf('*/', index + 2);
      if (end < 0) throw syntaxError(line, 'comment is not closed');
      for (const skipped of rules.slice(index, end)) if (skipped === '\n') line += 1;
      index = end + 2;
    } else if (char === '"') {
      let value = '';
      index += 1;
      for (;;) {
        const next = rules[index];
        if (next === undefined || next === '\n') throw syntaxError(line, 'string is not closed');
        index += 1;
        if (next === '"') break;
        if (next === '\\') {
          const escaped = rules[index];
          if (escaped !== '"' && escaped !== '\\') throw syntaxError(line, 'unsupported escape in string');
          value += escaped;
          index += 1;
        } else {
          value += next;
        }
      }
      tokens.push({ kind: 'string', value, line });
    } else if ('{}[]=,'.includes(char)) {
      tokens.push({ kind: 'symbol', value: char, line });
      index += 1;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rules.slice(index))![0];
      tokens.push({ kind: 'word', value: word, line });
      index += word.length;
    } else {
      throw syntaxError(line, `unexpected character ${JSON.stringify(char)}`);
    }
  }
  return tokens;
}

const PATH_PATTERN = /^[A-Za-z0-9_.\-/+*]*$/;

/** A pattern may use `+` only as a whole segment and `*` only at its very end. */
function checkPattern(pattern: string, line: number): void {
  if (!PATH_PATTERN.test(pattern))
    throw syntaxError(line, `path ${JSON.stringify(pattern)} has invalid characters`);
  const star = pattern.indexOf('*');
  if (star >= 0 && star !== pattern.length - 1) {
    throw syntaxError(line, `path ${JSON.stringify(pattern)}: "*" may only end a path`);
  }
  for (const segment of pattern.replace(/\*$/, '').split('/')) {
    if (segment.includes('+') && segment !== '+') {
      throw syntaxError(line, `path ${JSON.stringify(pattern)}: "+" must be a whole path segment`);
    }
  }
}

/**
 * Parses policy rules in Vault's HCL form, strictly: anything other than `path` blocks holding
 * one `capabilities` list of known capabilities is refused with a 400 naming the line. Blocks
 * for the same path are merged.
 */
export function parsePolicy(rules: string): PathRule[] {
  const tokens = tokenize(rules);
  let position = 0;
  const lastLine = tokens.at(-1)?.line ?? 1;
  const next = (): Token => {
    const token = tokens[position];
    if (!token) throw syntaxError(lastLine, 'unexpected end of rules');
    position += 1;
    return token;
  };
  const expect = (value: string, what: string): Token => {
    const token = next();
    if (token.kind === 'string' || token.value !== value) {
      throw syntaxError(token.line, `expected ${what}, found ${JSON.stringify(token.value)}`);
    }
    return token;
  };
  const merged = new Map<string, Set<Capability>>();
  while (position < tokens.length) {
    const keyword = next();
    if (keyword.kind !== 'word' || keyword.value !== 'path') {
      throw syntaxError(keyword.line, `expected a path block, found ${JSON.stringify(keyword.value)}`);
    }
    const pattern = next();
    if (pattern.kind !== 'string') throw syntaxError(pattern.line, 'expected the path in double quotes');
    checkPattern(pattern.value, pattern.line);
    expect('{', '"{"');
    let capabilities: Capability[] | undefined;
    for (;;) {
      const token = next();
      if (token.kind === 'symbol' && token.value === '}') break;
      if (token.kind !== 'word')
        throw syntaxError(token.line, `expected an attribute, found ${JSON.stringify(token.value)}`);
      if (token.value !== 'capabilities') {
        throw syntaxError(
          token.line,
          `unsupported attribute ${JSON.stringify(token.value)}; only capabilities is allowed`,
        );
      }
      if (capabilities) throw syntaxError(token.line, 'capabilities is given twice in one block');
      expect('=', '"="');
      capabilities = parseCapabilityList(next, expect);
    }
    if (!capabilities)
      throw syntaxError(pattern.line, `path ${JSON.stringify(pattern.value)} has no capabilities`);
    const set = merged.get(pattern.value) ?? new Set<Capability>();
    for (const capability of capabilities) set.add(capability);
    merged.set(pattern.value, set);
  }
  return [...merged].map(([pattern, set]) => ({ pattern, capabilities: [...set] }));
}

function parseCapabilityList(
  next: () => Token,
  expect: (value: string, what: string) => Token,
): Capability[] {
  expect('[', '"["');
  const capabilities: Capability[] = [];
  for (;;) {
    const token = next();
    if (token.kind === 'symbol' && token.value === ']') return capabilities;
    if (token.kind !== 'string')
      throw syntaxError(
        token.line,
        `expected a capability in double quotes, found ${JSON.stringify(token.value)}`,
      );
    if (!(CAPABILITIES as readonly string[]).includes(token.value)) {
      throw syntaxError(
        token.line,
        `unknown capability ${JSON.stringify(token.value)}; allowed: ${CAPABILITIES.join(', ')}`,
      );
    }
    capabilities.push(token.value as Capability);
    const separator = next();
    if (separator.kind === 'symbol' && separator.value === ']') return capabilities;
    if (separator.kind !== 'symbol' || separator.value !== ',') {
      throw syntaxError(separator.line, `expected "," or "]", found ${JSON.stringify(separator.value)}`);
    }
  }
}
