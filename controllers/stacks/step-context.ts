/**
 * What a step of an execution is given, what it answers, and how the references of a value are
 * resolved when the step starts: from what earlier steps recorded, and from the vault for
 * secrets and connection strings (which never leave it but into the step that needs them).
 */
import { createHash } from 'node:crypto';
import type { ObjectStore } from '../../control-plane/types.js';
import type { Stack, StackExecution } from '../../crds/stacks.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { Logger } from '../../observability/logger.js';
import type { VaultEngine } from '../../vault/vault-engine.js';
import type { WorkloadRuntime } from '../../workloads/runtime.js';
import { credentialsPath, readManagedSecret } from '../data-services/index.js';
import type { Clock } from '../../observability/clock.js';
import type { StackEntry, StackKey } from './records.js';
import { referencesIn, resolveReferences, type Reference, type Resolution } from './references.js';

export interface StepContext {
  store: ObjectStore;
  database: DataPlane;
  vault: VaultEngine;
  runtime: WorkloadRuntime;
  clock: Clock;
  logger: Logger;
  stack: Stack;
  execution: StackExecution;
  key: StackKey;
  /** The stack's REST id (`stk_…`), which vault paths are named after. */
  stackId: string;
  /** What is applied now, by `<section>.<name>`. */
  entries: ReadonlyMap<string, StackEntry>;
}

export type StepOutcome =
  /** Done; what it applied is recorded (or removed) already. */
  | { state: 'done'; message?: string }
  /** Not yet: look again after this long. */
  | { state: 'waiting'; afterMs: number; message?: string };

/** A step that cannot succeed as things are: the execution fails with this message. */
export class StepFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepFailure';
  }
}

/** The vault path (in the organization's managed vault cluster) of a generated secret. */
export function secretPath(stackId: string, name: string): string {
  return `stacks/${stackId}/secrets/${name}`;
}

/** The vault path of a sensitive output's value. */
export function outputPath(stackId: string, name: string): string {
  return `stacks/${stackId}/outputs/${name}`;
}

/** A short, stable digest, for ids derived from content. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** Attributes a database resource takes from its credentials in the vault, and whether each is secret. */
const CREDENTIAL_ATTRIBUTES: Record<string, boolean> = {
  connection_string: true,
  username: false,
  database: false,
};

async function valueOf(
  context: StepContext,
  reference: Reference,
): Promise<{ value: string; sensitive: boolean } | string> {
  const entry = context.entries.get(`${reference.section}.${reference.name}`);
  const what = `${reference.section}.${reference.name}`;
  if (!entry) return `${what} is not applied`;
  const { namespace } = context.key;
  if (reference.section === 'secrets') {
    const secret = entry.vaultPath
      ? await readManagedSecret(context.vault, namespace, entry.vaultPath)
      : undefined;
    const value = secret?.data.value;
    return typeof value === 'string' ? { value, sensitive: true } : `${what} has no value in the vault`;
  }
  if (reference.section === 'resources' && reference.attribute in CREDENTIAL_ATTRIBUTES) {
    const id = entry.attributes.id;
    const secret = id ? await readManagedSecret(context.vault, namespace, credentialsPath(id)) : undefined;
    const value = secret?.data[reference.attribute];
    if (value === undefined || value === null) {
      const state = entry.attributes.status ?? 'not ready';
      return `${what}.${reference.attribute} is not known: ${what} is ${state}${entry.attributes.message ? ` (${entry.attributes.message})` : ''}`;
    }
    return { value: String(value), sensitive: CREDENTIAL_ATTRIBUTES[reference.attribute]! };
  }
  const value = entry.attributes[reference.attribute];
  if (value === undefined) return `${what}.${reference.attribute} is not known`;
  return { value, sensitive: false };
}

/**
 * Resolves every reference in `value` as things are now; a reference that cannot be resolved is
 * a failure naming it and why (a recorded database has no connection string).
 */
export async function resolveNow(context: StepContext, value: unknown, where: string): Promise<Resolution> {
  const known = new Map<string, { value: string; sensitive: boolean }>();
  const problems: string[] = [];
  for (const reference of referencesIn(value)) {
    if (known.has(reference.raw)) continue;
    const found = await valueOf(context, reference);
    if (typeof found === 'string') problems.push(found);
    else known.set(reference.raw, found);
  }
  if (problems.length > 0) throw new StepFailure(`${where}: ${[...new Set(problems)].join('; ')}`);
  return resolveReferences(value, (reference) => known.get(reference.raw));
}
