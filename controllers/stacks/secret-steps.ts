/**
 * The secrets phase: generated passwords and tokens, written to the organization's managed vault
 * cluster. A value is made once and kept while its generator settings stay the same.
 */
import { randomBytes, randomInt } from 'node:crypto';
import {
  managedVaultReady,
  readManagedSecret,
  removeManagedSecret,
  writeManagedSecret,
} from '../data-services/index.js';
import { entryReplaced } from './plan.js';
import { removeEntry, saveEntry } from './records.js';
import {
  outputPath,
  resolveNow,
  secretPath,
  StepFailure,
  type StepContext,
  type StepOutcome,
} from './step-context.js';
import { DEFAULT_SECRET_LENGTH, type StackTemplate, type TemplateSecret } from './template.js';

const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789-_.~';

/** A password of letters, digits and URL-safe punctuation, or a token of URL-safe base64. */
export function generateSecret(secret: TemplateSecret): string {
  const length = secret.length ?? DEFAULT_SECRET_LENGTH;
  if (secret.generator_type === 'token') {
    return randomBytes(Math.ceil((length * 3) / 4) + 1)
      .toString('base64url')
      .slice(0, length);
  }
  let value = '';
  for (let index = 0; index < length; index += 1)
    value += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return value;
}

async function vaultReady(context: StepContext): Promise<boolean> {
  return managedVaultReady(context.store, context.vault, context.key.namespace);
}

export async function applySecret(
  context: StepContext,
  name: string,
  secret: TemplateSecret,
): Promise<StepOutcome> {
  if (!(await vaultReady(context))) {
    return { state: 'waiting', afterMs: 1_000, message: 'waiting for the managed vault cluster' };
  }
  const path = secretPath(context.stackId, name);
  const previous = context.entries.get(`secrets.${name}`);
  const kept =
    previous !== undefined &&
    !entryReplaced('secrets', previous.config, secret) &&
    (await readManagedSecret(context.vault, context.key.namespace, path)) !== undefined;
  if (!kept) {
    await writeManagedSecret(context.vault, context.key.namespace, path, {
      value: generateSecret(secret),
      generator_type: secret.generator_type,
    });
  }
  await saveEntry(
    context.database,
    context.key,
    { section: 'secrets', name, config: secret, attributes: { type: secret.type }, vaultPath: path },
    context.clock.now(),
  );
  return { state: 'done', ...(kept ? { message: 'kept the value already generated' } : {}) };
}

export async function removeSecret(context: StepContext, name: string): Promise<StepOutcome> {
  await removeManagedSecret(context.vault, context.key.namespace, secretPath(context.stackId, name));
  await removeEntry(context.database, context.key, 'secrets', name);
  return { state: 'done' };
}

/**
 * Resolves every output of the template. One that holds a secret (a generated value, a
 * connection string) is kept in the vault and shown masked; the others are recorded as they are.
 */
export async function applyOutputs(context: StepContext, template: StackTemplate): Promise<StepOutcome> {
  const outputs = template.outputs ?? {};
  for (const [name, output] of Object.entries(outputs)) {
    const resolved = await resolveNow(context, output.value, `outputs.${name}`);
    if (typeof resolved.value !== 'string')
      throw new StepFailure(`outputs.${name}: the value is not a string`);
    const path = outputPath(context.stackId, name);
    if (resolved.sensitive) {
      if (!(await vaultReady(context))) {
        return { state: 'waiting', afterMs: 1_000, message: 'waiting for the managed vault cluster' };
      }
      await writeManagedSecret(context.vault, context.key.namespace, path, { value: resolved.value });
    } else {
      await removeManagedSecret(context.vault, context.key.namespace, path);
    }
    await saveEntry(
      context.database,
      context.key,
      {
        section: 'outputs',
        name,
        config: output,
        attributes: resolved.sensitive ? {} : { value: resolved.value },
        ...(resolved.sensitive ? { vaultPath: path } : {}),
      },
      context.clock.now(),
    );
  }
  return { state: 'done' };
}

export async function removeOutput(context: StepContext, name: string): Promise<StepOutcome> {
  await removeManagedSecret(context.vault, context.key.namespace, outputPath(context.stackId, name));
  await removeEntry(context.database, context.key, 'outputs', name);
  return { state: 'done' };
}
