/** The scopes an API key may carry, as the API checks them (a unit test keeps the two lists equal). */
export const API_KEY_SCOPES = [
  'vault:read',
  'vault:write',
  'vpc:read',
  'vpc:write',
  'integrations:read',
  'integrations:write',
  'stacks:read',
  'stacks:write',
  'streaming:read',
  'streaming:write',
  'databases:read',
  'databases:write',
  'usage:read',
  '*',
] as const;
