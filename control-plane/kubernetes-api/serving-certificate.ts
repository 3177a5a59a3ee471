import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { createSelfSignedCertificate } from '../../security/certificates.js';

/**
 * The self-signed TLS certificate the Kubernetes API is served with. kubectl sends a bearer
 * token only over TLS, so the embedded control plane needs one; the kubeconfig carries the
 * certificate as its authority, which makes the connection verified rather than merely encrypted.
 */

export interface ServingCertificate {
  /** PEM private key (ECDSA P-256). */
  key: string;
  /** PEM certificate, also the authority clients trust. */
  cert: string;
}

const VALIDITY_DAYS = 365;
/** A stored certificate this close to expiry is replaced. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A self-signed ECDSA P-256 certificate for `hosts` (DNS names and IP addresses), valid from `now`. */
export function createServingCertificate(
  hosts: readonly string[],
  now: Date = new Date(),
): ServingCertificate {
  return createSelfSignedCertificate('cloudplane embedded control plane', hosts, VALIDITY_DAYS, now);
}

function stillGood(cert: string, hosts: readonly string[], now: Date): boolean {
  try {
    const parsed = new X509Certificate(cert);
    if (Date.parse(parsed.validTo) - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    return hosts.every((host) => (isIP(host) ? parsed.checkIP(host) : parsed.checkHost(host)) !== undefined);
  } catch {
    return false;
  }
}

/**
 * The certificate kept in `dir` (`kubernetes-api.crt` and `.key`, the key readable by its owner
 * only), made when missing, expiring within 30 days, or not covering every one of `hosts`. Kept
 * across restarts so a written kubeconfig stays valid.
 */
export function loadServingCertificate(
  dir: string,
  hosts: readonly string[],
  now: Date = new Date(),
): ServingCertificate {
  const certFile = path.join(dir, 'kubernetes-api.crt');
  const keyFile = path.join(dir, 'kubernetes-api.key');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    const stored = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
    if (stillGood(stored.cert, hosts, now)) return stored;
  }
  const created = createServingCertificate(hosts, now);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyFile, created.key, { mode: 0o600 });
  fs.chmodSync(keyFile, 0o600);
  fs.writeFileSync(certFile, created.cert, { mode: 0o644 });
  return created;
}
