/**
 * Database credentials in the organization's managed vault cluster. A connection string is a
 * secret: it lives only there (KV v2 at `databases/<db_id>`), never in an object, a log or an event.
 * The cluster is created on first need, named `managed` and unsealed with the platform key.
 */
import { randomBytes } from 'node:crypto';
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import { isStoreError, type ObjectStore } from '../../control-plane/types.js';
import { VAULT_CLUSTER, type VaultCluster } from '../../crds/vault-cluster.js';
import { vaultClusterId, type VaultCaller, type VaultEngine } from '../../vault/vault-engine.js';
import { VaultError } from '../../vault/vault-error.js';
import type { DatabaseAccess } from '../../workloads/runtime.js';
import { MANAGED_LABEL } from '../../crds/annotations.js';

/** The object name (and REST id) of every organization's managed vault cluster. */
export const MANAGED_VAULT_CLUSTER = 'managed';

/** The platform itself, as the audit log records it. */
const PLATFORM_CALLER: VaultCaller = { clientAddress: 'platform', userAgent: 'cloudplane-data-services' };

export function credentialsPath(databaseId: string): string {
  return `databases/${databaseId}`;
}

/** A new password: 32 URL-safe characters, which every engine's clients take unquoted. */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

export interface StoredCredentials {
  password: string;
  /** The secret's version. */
  version: number;
}

/**
 * Makes sure the organization's managed vault cluster exists; true once it is initialised and
 * unsealed (its own controller does that), false while the caller should wait.
 */
export async function managedVaultReady(
  store: ObjectStore,
  vault: VaultEngine,
  namespace: string,
): Promise<boolean> {
  try {
    await store.get<VaultCluster>(VAULT_CLUSTER, namespace, MANAGED_VAULT_CLUSTER);
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
    try {
      await store.create<VaultCluster>(VAULT_CLUSTER, {
        apiVersion: API_VERSION,
        kind: VAULT_CLUSTER.kind,
        metadata: { name: MANAGED_VAULT_CLUSTER, namespace, labels: { [MANAGED_LABEL]: 'true' } },
        spec: { name: MANAGED_VAULT_CLUSTER, autoUnseal: true, shares: 1, threshold: 1 },
      });
    } catch (createError) {
      if (!isStoreError(createError, 'AlreadyExists')) throw createError;
    }
    return false;
  }
  const clusterId = vaultClusterId(namespace, MANAGED_VAULT_CLUSTER);
  if (!(await vault.isInitialized(clusterId))) return false;
  return vault.forCluster(clusterId).autoUnseal();
}

/**
 * What this process last wrote or read of each database's secret. The controllers own these
 * secrets, so a refresh every 30 s need not decrypt one again and add a vault audit entry each
 * time; another process (a new leader) reads the vault once.
 */
const known = new WeakMap<VaultEngine, Map<string, StoredCredentials>>();

function knownOf(vault: VaultEngine): Map<string, StoredCredentials> {
  let entries = known.get(vault);
  if (!entries) known.set(vault, (entries = new Map()));
  return entries;
}

export async function readCredentials(
  vault: VaultEngine,
  namespace: string,
  databaseId: string,
): Promise<StoredCredentials | undefined> {
  const cached = knownOf(vault).get(`${namespace}/${databaseId}`);
  if (cached) return cached;
  const secret = await readManagedSecret(vault, namespace, credentialsPath(databaseId));
  const password = secret?.data.password;
  if (!secret || typeof password !== 'string') return undefined;
  const stored = { password, version: secret.version };
  knownOf(vault).set(`${namespace}/${databaseId}`, stored);
  return stored;
}

/** Writes a new version of the database's secret; returns the version. */
export async function writeCredentials(
  vault: VaultEngine,
  namespace: string,
  databaseId: string,
  access: DatabaseAccess,
  password: string,
): Promise<number> {
  const version = await writeManagedSecret(vault, namespace, credentialsPath(databaseId), {
    connection_string: access.connectionString,
    host: access.host,
    port: access.port,
    database: access.database,
    username: access.username,
    password,
  });
  knownOf(vault).set(`${namespace}/${databaseId}`, { password, version });
  return version;
}

/** Removes every version of the database's secret; idempotent. */
export async function removeCredentials(
  vault: VaultEngine,
  namespace: string,
  databaseId: string,
): Promise<void> {
  knownOf(vault).delete(`${namespace}/${databaseId}`);
  await removeManagedSecret(vault, namespace, credentialsPath(databaseId));
}

export interface ManagedSecret {
  data: Record<string, unknown>;
  version: number;
}

/** A KV v2 secret of the organization's managed vault cluster; undefined when there is none. */
export async function readManagedSecret(
  vault: VaultEngine,
  namespace: string,
  path: string,
): Promise<ManagedSecret | undefined> {
  const clusterId = vaultClusterId(namespace, MANAGED_VAULT_CLUSTER);
  if (!(await vault.isInitialized(clusterId))) return undefined;
  try {
    const secret = await vault
      .forCluster(clusterId)
      .perform(
        PLATFORM_CALLER,
        { operation: 'READ', path: `secret/data/${path}`, successStatus: 200 },
        (operations) => operations.kv.read(path),
      );
    return { data: secret.data, version: secret.metadata.version };
  } catch (error) {
    if (error instanceof VaultError && error.kind === 'not_found') return undefined;
    throw error;
  }
}

/** Writes a new version of a KV v2 secret in the managed vault cluster; returns the version. */
export async function writeManagedSecret(
  vault: VaultEngine,
  namespace: string,
  path: string,
  data: Record<string, unknown>,
): Promise<number> {
  const cluster = vault.forCluster(vaultClusterId(namespace, MANAGED_VAULT_CLUSTER));
  const written = await cluster.perform(
    PLATFORM_CALLER,
    { operation: 'UPDATE', path: `secret/data/${path}`, successStatus: 200 },
    (operations) => operations.kv.write(path, data),
  );
  return written.version;
}

/** Removes every version of a KV v2 secret of the managed vault cluster; idempotent. */
export async function removeManagedSecret(
  vault: VaultEngine,
  namespace: string,
  path: string,
): Promise<void> {
  const clusterId = vaultClusterId(namespace, MANAGED_VAULT_CLUSTER);
  if (!(await vault.isInitialized(clusterId))) return;
  try {
    await vault
      .forCluster(clusterId)
      .perform(
        PLATFORM_CALLER,
        { operation: 'DELETE', path: `secret/metadata/${path}`, successStatus: 204 },
        (operations) => operations.kv.destroy(path),
      );
  } catch (error) {
    if (error instanceof VaultError && error.kind === 'not_found') return;
    throw error;
  }
}
