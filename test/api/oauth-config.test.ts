import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';

const REDIRECTS = { CLOUDPLANE_OAUTH_REDIRECT_URIS: 'https://app.example.com/signed-in' };
const IDENTITY = {
  ...REDIRECTS,
  CLOUDPLANE_OAUTH_IDENTITY_ISSUER: 'https://login.example.com',
  CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID: 'cloudplane',
  CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET: 'identity-secret',
};
const CODEHOST = {
  ...REDIRECTS,
  CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID: 'Iv1.cloudplane',
  CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET: 'codehost-secret',
};

describe('OAuth configuration', () => {
  it('configures no provider without client ids', () => {
    expect(loadConfig({}).oauth).toEqual({ redirectUris: [], identity: undefined, codehost: undefined });
  });

  it("defaults the codehost endpoints to GitHub's and its scopes to read:user user:email", () => {
    expect(loadConfig(CODEHOST).oauth.codehost).toEqual({
      clientId: 'Iv1.cloudplane',
      clientSecret: 'codehost-secret',
      authorizeUrl: 'https://github.com/login/oauth/authorize',
      tokenUrl: 'https://github.com/login/oauth/access_token',
      userUrl: 'https://api.github.com/user',
      emailsUrl: 'https://api.github.com/user/emails',
      scopes: 'read:user user:email',
    });
  });

  it('reads the redirect allow-list as comma-separated URIs', () => {
    const env = { CLOUDPLANE_OAUTH_REDIRECT_URIS: ' https://a.example.com/cb ,, http://localhost:3000/cb ' };
    expect(loadConfig(env).oauth.redirectUris).toEqual([
      'https://a.example.com/cb',
      'http://localhost:3000/cb',
    ]);
  });

  it.each([['http://127.0.0.1:9000'], ['http://localhost:9000/realms/main'], ['http://[::1]:9000']])(
    'accepts the plain-http issuer %s on a loopback host',
    (issuer) => {
      expect(
        loadConfig({ ...IDENTITY, CLOUDPLANE_OAUTH_IDENTITY_ISSUER: issuer }).oauth.identity?.issuer,
      ).toBe(issuer);
    },
  );

  it.each([
    [
      'an identity client id without an issuer',
      { ...IDENTITY, CLOUDPLANE_OAUTH_IDENTITY_ISSUER: '' },
      'CLOUDPLANE_OAUTH_IDENTITY_ISSUER: expected a value when CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID is set, got ""',
    ],
    [
      'an identity client id without a secret',
      { ...IDENTITY, CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET: '' },
      'CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET: expected a value when CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID is set, got ""',
    ],
    [
      'a plain-http issuer on a network host',
      { ...IDENTITY, CLOUDPLANE_OAUTH_IDENTITY_ISSUER: 'http://login.example.com' },
      'CLOUDPLANE_OAUTH_IDENTITY_ISSUER: expected an https URL (http only on a loopback host), got "http://login.example.com"',
    ],
    [
      'a codehost token URL that is not a URL',
      { ...CODEHOST, CLOUDPLANE_OAUTH_CODEHOST_TOKEN_URL: 'github.com/token' },
      'CLOUDPLANE_OAUTH_CODEHOST_TOKEN_URL: expected an https URL (http only on a loopback host), got "github.com/token"',
    ],
    [
      'a codehost client id without a secret',
      { ...CODEHOST, CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET: ' ' },
      'CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET: expected a value when CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID is set, got " "',
    ],
    [
      'a provider without redirect URIs',
      { ...CODEHOST, CLOUDPLANE_OAUTH_REDIRECT_URIS: '' },
      'CLOUDPLANE_OAUTH_REDIRECT_URIS: expected at least one URL when an OAuth provider is configured, got ""',
    ],
    [
      'a redirect URI with a fragment',
      { CLOUDPLANE_OAUTH_REDIRECT_URIS: 'https://app.example.com/cb#done' },
      'CLOUDPLANE_OAUTH_REDIRECT_URIS: expected comma-separated http or https URLs without a fragment, got "https://app.example.com/cb#done"',
    ],
    [
      'a redirect URI with another scheme',
      { CLOUDPLANE_OAUTH_REDIRECT_URIS: 'https://app.example.com/cb,javascript:alert(1)' },
      'CLOUDPLANE_OAUTH_REDIRECT_URIS: expected comma-separated http or https URLs without a fragment, got "javascript:alert(1)"',
    ],
  ])('refuses %s, naming the variable', (_case, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
