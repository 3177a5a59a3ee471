/** What went wrong, in the terms both the REST facade and the Vault-compatible API answer with. */
export type VaultErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'permission_denied'
  | 'not_found'
  | 'conflict'
  | 'sealed'
  | 'audit_unavailable';

const STATUS: Record<VaultErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  sealed: 503,
  audit_unavailable: 503,
};

/** A refusal of the secrets engine; `status` is the HTTP status it answers with. */
export class VaultError extends Error {
  readonly status: number;
  constructor(
    readonly kind: VaultErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'VaultError';
    this.status = STATUS[kind];
  }
}

export const sealedError = (): VaultError =>
  new VaultError('sealed', 'the vault cluster is sealed; unseal it before using its data');

/**
 * Thrown by an action run read-only (`VaultRequest.readOnly`) that finds it has to write, such as
 * a transit encryption whose key does not exist yet: the engine runs it again in a transaction.
 */
export class WriteNeeded extends Error {}
