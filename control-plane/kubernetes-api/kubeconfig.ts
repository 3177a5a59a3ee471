import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** The API's base URL, e.g. `https://127.0.0.1:8443/k8s`. kubectl sends the token only over https. */
  server: string;
  token: string;
  /** PEM certificate clients verify the server with (the self-signed serving certificate). */
  certificateAuthority?: string;
  /** The namespace kubectl uses when none is given. */
  namespace?: string;
}

/** The context, cluster and user name the written kubeconfig uses. */
export const KUBECONFIG_CONTEXT = 'cloudplane';

/** A fresh bearer token for the embedded control plane: 256 random bits, URL-safe. */
export function generateStartupToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Writes a kubeconfig for kubectl and client libraries: one cluster, one token user and the
 * `cloudplane` context, made current. The file holds a credential, so it is readable by its owner
 * only, and it is replaced in one rename so a reader never sees half of it.
 */
export function writeKubeconfig(file: string, options: KubeconfigOptions): void {
  const context: Record<string, string> = { cluster: KUBECONFIG_CONTEXT, user: KUBECONFIG_CONTEXT };
  if (options.namespace !== undefined) context.namespace = options.namespace;
  const cluster: Record<string, string> = { server: options.server };
  if (options.certificateAuthority !== undefined) {
    cluster['certificate-authority-data'] = Buffer.from(options.certificateAuthority, 'utf8').toString(
      'base64',
    );
  }
  const document = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: KUBECONFIG_CONTEXT, cluster }],
    users: [{ name: KUBECONFIG_CONTEXT, user: { token: options.token } }],
    contexts: [{ name: KUBECONFIG_CONTEXT, context }],
    'current-context': KUBECONFIG_CONTEXT,
    preferences: {},
  };
  const target = path.resolve(file);
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const staging = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(staging, stringify(document), { mode: 0o600 });
    fs.chmodSync(staging, 0o600);
    fs.renameSync(staging, target);
  } finally {
    fs.rmSync(staging, { force: true });
  }
}
