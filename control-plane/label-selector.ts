import { badRequest } from './store-errors.js';
import { labelValueProblem, qualifiedNameProblem } from './label-syntax.js';

type Operator = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/** A parsed label selector: answers whether a set of labels matches it. */
export type LabelMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

type Token = { kind: 'identifier'; text: string } | { kind: 'symbol'; text: string } | { kind: 'end' };

const SYMBOLS = ['!=', '==', '!', '(', ')', ',', '=', '>', '<'];

function tokenize(selector: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < selector.length) {
    const char = selector[index] ?? '';
    if (/\s/.test(char)) {
      index += 1;
      continue;
    }
    const symbol = SYMBOLS.find((candidate) => selector.startsWith(candidate, index));
    if (symbol) {
      tokens.push({ kind: 'symbol', text: symbol });
      index += symbol.length;
      continue;
    }
    let end = index;
    while (end < selector.length) {
      const next = selector[end] ?? '';
      if (/\s/.test(next) || SYMBOLS.some((candidate) => selector.startsWith(candidate, end))) break;
      end += 1;
    }
    tokens.push({ kind: 'identifier', text: selector.slice(index, end) });
    index = end;
  }
  tokens.push({ kind: 'end' });
  return tokens;
}

class SelectorParser {
  private position = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly source: string,
  ) {}

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    if (this.peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.requirement());
      const next = this.take();
      if (next.kind === 'end') return requirements;
      if (next.text !== ',') this.fail(`found '${next.text}', expected: ',' or 'end of string'`);
    }
  }

  private requirement(): Requirement {
    if (this.isSymbol('!')) {
      this.take();
      return this.checked({ key: this.identifier('identifier'), operator: '!', values: [] });
    }
    const key = this.identifier('identifier');
    const next = this.peek();
    if (next.kind === 'end' || (next.kind === 'symbol' && next.text === ',')) {
      return this.checked({ key, operator: 'exists', values: [] });
    }
    const operator = this.operator();
    const values = operator === 'in' || operator === 'notin' ? this.valueSet() : [this.exactValue()];
    return this.checked({ key, operator, values });
  }

  private operator(): Operator {
    const token = this.take();
    if (token.kind === 'identifier' && (token.text === 'in' || token.text === 'notin')) return token.text;
    if (token.kind === 'symbol') {
      if (token.text === '=' || token.text === '==') return '=';
      if (token.text === '!=') return '!=';
      if (token.text === '>') return 'gt';
      if (token.text === '<') return 'lt';
    }
    return this.fail(
      `found '${token.kind === 'end' ? 'end of string' : token.text}', expected: in, notin, =, ==, !=, gt, lt`,
    );
  }

  private exactValue(): string {
    const next = this.peek();
    if (next.kind === 'end' || (next.kind === 'symbol' && next.text === ',')) return '';
    return this.identifier('identifier for value');
  }

  private valueSet(): string[] {
    const open = this.take();
    if (open.kind !== 'symbol' || open.text !== '(')
      this.fail("found '" + this.describe(open) + "', expected: '('");
    const values: string[] = [];
    for (;;) {
      const token = this.take();
      if (token.kind === 'identifier') values.push(token.text);
      else if (token.kind === 'symbol' && (token.text === ',' || token.text === ')')) values.push('');
      else this.fail(`found '${this.describe(token)}', expected: ',', ')' or identifier`);
      const separator = token.kind === 'identifier' ? this.take() : token;
      if (separator.kind === 'symbol' && separator.text === ')') return values;
      if (separator.kind !== 'symbol' || separator.text !== ',') {
        this.fail(`found '${this.describe(separator)}', expected: ',' or ')'`);
      }
    }
  }

  private checked(requirement: Requirement): Requirement {
    const keyProblem = qualifiedNameProblem(requirement.key);
    if (keyProblem) this.fail(`key: Invalid value: "${requirement.key}": ${keyProblem}`);
    for (const value of requirement.values) {
      if (requirement.operator === 'gt' || requirement.operator === 'lt') {
        if (!/^-?\d+$/.test(value)) this.fail(`values: Invalid value: "${value}": must be an integer`);
      } else {
        const valueProblem = labelValueProblem(value);
        if (valueProblem) this.fail(`values: Invalid value: "${value}": ${valueProblem}`);
      }
    }
    return requirement;
  }

  private identifier(expected: string): string {
    const token = this.take();
    if (token.kind !== 'identifier') this.fail(`found '${this.describe(token)}', expected: ${expected}`);
    return token.text;
  }

  private isSymbol(text: string): boolean {
    const token = this.peek();
    return token.kind === 'symbol' && token.text === text;
  }

  private peek(): Token {
    return this.tokens[this.position] ?? { kind: 'end' };
  }

  private take(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.position += 1;
    return token;
  }

  private describe(token: Token): string {
    return token.kind === 'end' ? 'end of string' : token.text;
  }

  private fail(problem: string): never {
    throw badRequest(`unable to parse requirement: ${problem} (in selector "${this.source}")`);
  }
}

function matches(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = has ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return value !== undefined && requirement.values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !requirement.values.includes(value);
    case 'gt':
    case 'lt': {
      if (value === undefined || !/^-?\d+$/.test(value)) return false;
      const actual = Number(value);
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/**
 * Parses a Kubernetes label selector (`a=b,c!=d,e in (f,g),h notin (i),j,!k,l>3`). An empty or
 * missing selector matches everything; a malformed one is a `BadRequest` naming the problem.
 */
export function parseLabelSelector(selector: string | undefined): LabelMatcher {
  const requirements = new SelectorParser(tokenize(selector ?? ''), selector ?? '').parse();
  return (labels) => requirements.every((requirement) => matches(requirement, labels ?? {}));
}
