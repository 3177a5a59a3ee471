/**
 * Which scope reads which events: a credential sees the events of the families it may read, as
 * the REST API would show it those resources. Organization and catch-all events go to every
 * member's credential.
 */
const SCOPE_OF_SUBJECT: Readonly<Record<string, string>> = {
  vpc: 'vpc:read',
  vault_cluster: 'vault:read',
  integration: 'integrations:read',
  stack: 'stacks:read',
  database: 'databases:read',
  nfs_share: 'databases:read',
  backup: 'databases:read',
  streaming_cluster: 'streaming:read',
  streaming_user: 'streaming:read',
};

/** The scope an event type needs, or undefined when any member's credential may read it. */
export function scopeOfEventType(type: string): string | undefined {
  return SCOPE_OF_SUBJECT[type.split('.')[0] ?? ''];
}

export function scopesRead(scopes: readonly string[], type: string): boolean {
  const needed = scopeOfEventType(type);
  return needed === undefined || scopes.includes('*') || scopes.includes(needed);
}
