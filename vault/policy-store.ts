import type { Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import { parsePolicy, type PathRule } from './policy-parser.js';
import { VaultError } from './vault-error.js';

export interface Policy {
  name: string;
  description: string;
  rules: string;
  created_at: string;
}

/** Vault's `default` policy: what every token may do with itself. */
export const DEFAULT_POLICY_RULES = `# Allow tokens to look up, renew and revoke themselves
path "auth/token/lookup-self" {
  capabilities = ["read"]
}

path "auth/token/renew-self" {
  capabilities = ["update"]
}

path "auth/token/revoke-self" {
  capabilities = ["update"]
}

path "sys/capabilities-self" {
  capabilities = ["update"]
}
`;

const POLICY_NAME = /^[a-z0-9][a-z0-9_.-]{0,127}$/;

export function checkPolicyName(name: string): void {
  if (!POLICY_NAME.test(name)) {
    throw new VaultError(
      'invalid',
      `invalid policy name ${JSON.stringify(name)}: lowercase letters, digits and _ . -, at most 128 characters`,
    );
  }
}

/**
 * ACL policies. `root` is built in, grants everything and cannot be written or deleted;
 * `default` is built in, may be rewritten, and cannot be deleted. Writing is create-or-update.
 */
export class PolicyStore {
  constructor(
    private readonly db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    private readonly now: () => Date,
  ) {}

  async list(): Promise<Policy[]> {
    const rows = await this.db
      .selectFrom('vault_policies')
      .select(['name', 'description', 'rules', 'created_at'])
      .where('cluster_id', '=', this.clusterId)
      .orderBy('name')
      .execute();
    const stored = new Map(rows.map((row) => [row.name, row]));
    const builtIns = [this.builtIn('default', stored), this.builtIn('root', stored)];
    return [...builtIns, ...rows.filter((row) => row.name !== 'default')];
  }

  async read(name: string): Promise<Policy> {
    checkPolicyName(name);
    const stored = await this.row(name);
    if (stored) return stored;
    if (name === 'default' || name === 'root') return this.builtIn(name, new Map());
    throw new VaultError('not_found', `policy ${name} not found`);
  }

  /** Parses before writing: rules with a syntax error are refused and nothing is stored. */
  async write(name: string, rules: string, description = ''): Promise<void> {
    checkPolicyName(name);
    if (name === 'root') throw new VaultError('invalid', 'the root policy cannot be changed');
    parsePolicy(rules);
    const now = this.now().toISOString();
    await this.db
      .insertInto('vault_policies')
      .values({ cluster_id: this.clusterId, name, description, rules, created_at: now, updated_at: now })
      .onConflict((conflict) =>
        conflict.columns(['cluster_id', 'name']).doUpdateSet({ rules, description, updated_at: now }),
      )
      .execute();
  }

  async delete(name: string): Promise<void> {
    checkPolicyName(name);
    if (name === 'root' || name === 'default') {
      throw new VaultError('invalid', `the ${name} policy cannot be deleted`);
    }
    const result = await this.db
      .deleteFrom('vault_policies')
      .where('cluster_id', '=', this.clusterId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new VaultError('not_found', `policy ${name} not found`);
  }

  /** The parsed rules of the named policies; unknown names grant nothing, as in Vault. */
  async rulesOf(names: readonly string[]): Promise<PathRule[][]> {
    const wanted = names.filter((name) => name !== 'root');
    if (wanted.length === 0) return [];
    const rows = await rulesNamed(wanted.length)(this.db, this.clusterId, ...wanted);
    const texts = new Map(rows.map((row) => [row.name, row.rules]));
    if (wanted.includes('default') && !texts.has('default')) texts.set('default', DEFAULT_POLICY_RULES);
    return [...texts.values()].map(parsedPolicy);
  }

  private async row(name: string): Promise<Policy | undefined> {
    return this.db
      .selectFrom('vault_policies')
      .select(['name', 'description', 'rules', 'created_at'])
      .where('cluster_id', '=', this.clusterId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  private builtIn(name: 'default' | 'root', stored: Map<string, Policy>): Policy {
    const row = stored.get(name);
    if (row) return row;
    return name === 'root'
      ? { name, description: 'Grants every capability on every path', rules: '', created_at: '' }
      : { name, description: 'Lets a token manage itself', rules: DEFAULT_POLICY_RULES, created_at: '' };
  }
}

/**
 * Policies as last parsed, by their text: every request with a vault token evaluates its policies,
 * and parsing costs more than the lookup. Keyed by the text itself, so a changed policy is a new
 * entry and never answered from an old one.
 */
type RulesQuery = (
  db: Kysely<DataPlaneSchema>,
  clusterId: string,
  ...names: string[]
) => Promise<{ name: string; rules: string }[]>;

/**
 * The rules of the named policies, compiled once per number of names: a request made with a
 * vault token reads its policies, and building the query cost more than running it. Tokens carry
 * a few policies; past `MAX_PREPARED_NAMES` the query is built for the call.
 */
const preparedRules = new Map<number, RulesQuery>();
const MAX_PREPARED_NAMES = 16;

function rulesNamed(count: number): RulesQuery {
  const query = (db: Kysely<DataPlaneSchema>, clusterId: string, ...names: string[]) =>
    db
      .selectFrom('vault_policies')
      .select(['name', 'rules'])
      .where('cluster_id', '=', clusterId)
      .where('name', 'in', names);
  if (count > MAX_PREPARED_NAMES)
    return (db, clusterId, ...names) => query(db, clusterId, ...names).execute();
  let prepared = preparedRules.get(count);
  if (!prepared) {
    prepared = preparedQuery(query);
    preparedRules.set(count, prepared);
  }
  return prepared;
}

const parsedPolicies = new Map<string, PathRule[]>();
const MAX_PARSED_POLICIES = 1_000;

function parsedPolicy(rules: string): PathRule[] {
  let parsed = parsedPolicies.get(rules);
  if (!parsed) {
    parsed = parsePolicy(rules);
    if (parsedPolicies.size >= MAX_PARSED_POLICIES) parsedPolicies.clear();
    parsedPolicies.set(rules, parsed);
  }
  return parsed;
}
