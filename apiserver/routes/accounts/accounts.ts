import { requireUserSession } from '../../../accounts/authenticator.js';
import type { AccountsDeps } from '../../../accounts/deps.js';
import { completeTwoFactorLogin, login, type ClientInfo } from '../../../accounts/login.js';
import {
  changePassword,
  requestPasswordReset,
  RESET_REQUESTED_MESSAGE,
  resetPassword,
} from '../../../accounts/password-changes.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../accounts/passwords.js';
import { type ProfileChange, callerOf, updateProfile } from '../../../accounts/profile.js';
import {
  register,
  resendVerification,
  VERIFICATION_MAILS_PER_HOUR,
  verifyEmail,
} from '../../../accounts/registration.js';
import { listSessions, refreshSession, revokeSession, revokeSessions } from '../../../accounts/sessions.js';
import { beginTwoFactorSetup, confirmTwoFactor, disableTwoFactor } from '../../../accounts/two-factor.js';
import { findUserRow } from '../../../accounts/users.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { unauthorized } from '../../errors.js';
import {
  defineRoute,
  type RouteContext,
  type RouteModule,
  type PublicContext,
  type Empty,
  type AuthenticatedContext,
} from '../../routing/route.js';
import { depsOf, type AccountsRouteServices } from './accounts-services.js';
import type { Principal } from '../../../accounts/principal.js';

const EMAIL = { type: 'string', format: 'email', maxLength: 254 } as const satisfies JsonSchema;

/** Checked exactly (code points after NFKC) by the password policy; the schema only bounds the size. */
const NEW_PASSWORD = {
  type: 'string',
  maxLength: 4 * PASSWORD_MAX_LENGTH,
  description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters (Unicode code points after NFKC)`,
} as const satisfies JsonSchema;

const PASSWORD = {
  type: 'string',
  minLength: 1,
  maxLength: 4 * PASSWORD_MAX_LENGTH,
} as const satisfies JsonSchema;

const NAME = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' } as const satisfies JsonSchema;

const OPAQUE_TOKEN = { type: 'string', minLength: 1, maxLength: 200 } as const satisfies JsonSchema;

const CODE = {
  type: 'string',
  minLength: 6,
  maxLength: 32,
  description: 'A six-digit code from the authenticator app, or a backup code',
} as const satisfies JsonSchema;

const TIMESTAMP = { type: 'string', format: 'date-time' } as const satisfies JsonSchema;

const MESSAGE = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
} as const satisfies JsonSchema;

const TOKEN_RESULT_PROPERTIES = {
  token: { type: 'string', description: 'The access token (a JWT) for `Authorization: Bearer`' },
  expires_at: TIMESTAMP,
  refresh_token: { type: 'string', description: 'Single use: each refresh answers the next one' },
} as const satisfies Record<string, JsonSchema>;

const TOKEN_RESULT = {
  type: 'object',
  required: ['token', 'expires_at', 'refresh_token'],
  properties: TOKEN_RESULT_PROPERTIES,
} as const satisfies JsonSchema;

const USER = {
  type: 'object',
  required: [
    'id',
    'email',
    'name',
    'avatar_url',
    'email_verified',
    'two_factor_enabled',
    'organizations',
    'current_organization_id',
    'created_at',
  ],
  properties: {
    id: { type: 'string', examples: ['usr_abcdefghijklmnopqrstuvwx'] },
    email: { type: 'string' },
    name: { type: 'string' },
    avatar_url: { type: ['string', 'null'] },
    email_verified: { type: 'boolean' },
    two_factor_enabled: { type: 'boolean' },
    organizations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'role'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          role: { type: 'string', enum: ['owner', 'admin', 'member'] },
        },
      },
    },
    current_organization_id: { type: ['string', 'null'] },
    created_at: TIMESTAMP,
  },
} as const satisfies JsonSchema;

const SESSION = {
  type: 'object',
  required: ['id', 'device', 'ip_address', 'location', 'current', 'last_active', 'created_at'],
  properties: {
    id: { type: 'string' },
    device: { type: 'string', examples: ['Firefox on Linux'] },
    ip_address: { type: 'string' },
    location: { type: 'string', examples: ['Local network'] },
    current: { type: 'boolean' },
    last_active: TIMESTAMP,
    created_at: TIMESTAMP,
  },
} as const satisfies JsonSchema;

function body(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return { type: 'object', required, additionalProperties: false, properties };
}

function clientOf(ctx: Pick<RouteContext, 'headers' | 'clientIp'>): ClientInfo {
  const agent = ctx.headers['user-agent'];
  return { userAgent: agent?.slice(0, 512), ipAddress: ctx.clientIp || 'unknown' };
}

async function signedInUser(deps: AccountsDeps, principal: Principal) {
  const user = await findUserRow(deps.database.kysely, { id: requireUserSession(principal).userId });
  if (!user) throw unauthorized('the account no longer exists', { code: 'invalid_token' });
  return user;
}

const LOCKED = { description: 'Too many failed logins: `retry_after` seconds to wait' } as const;

async function registerAccount(
  ctx: PublicContext<{ body: { email: string; password: string; name: string } }, AccountsRouteServices>,
) {
  const user = await register(depsOf(ctx), ctx.mailer, ctx.body);
  return {
    status: 201,
    data: {
      user: { id: user.id, email: user.email, name: user.name, email_verified: user.email_verified },
      message: 'Account created. Check your e-mail for a link to verify your address.',
    },
  };
}

async function signIn(
  ctx: PublicContext<{ body: { email: string; password: string } }, AccountsRouteServices>,
) {
  const { session_id: _session, ...result } = await login(depsOf(ctx), ctx.body, clientOf(ctx));
  return { data: result };
}

async function verifyEmailAddress(ctx: PublicContext<{ body: { token: string } }, AccountsRouteServices>) {
  const { session_id: _session, ...tokens } = await verifyEmail(depsOf(ctx), ctx.body.token, clientOf(ctx));
  return { data: { message: 'E-mail address verified.', ...tokens } };
}

async function forgotPassword(ctx: PublicContext<{ body: { email: string } }, AccountsRouteServices>) {
  await requestPasswordReset(depsOf(ctx), ctx.mailer, ctx.body.email);
  return { data: { message: RESET_REQUESTED_MESSAGE } };
}

async function resendVerificationEmail(
  ctx: PublicContext<{ body: { email: string } }, AccountsRouteServices>,
) {
  await resendVerification(depsOf(ctx), ctx.mailer, ctx.body.email);
  return {
    status: 202,
    data: {
      message: 'If the address has an account waiting for verification, a new link is on its way.',
    },
  };
}

async function resetPasswordWithToken(
  ctx: PublicContext<{ body: { token: string; password: string } }, AccountsRouteServices>,
) {
  await resetPassword(depsOf(ctx), ctx.body);
  return { data: { message: 'Password changed. Sign in with the new password.' } };
}

async function refreshTokens(ctx: PublicContext<{ body: { refresh_token: string } }, AccountsRouteServices>) {
  const { session_id: _session, ...tokens } = await refreshSession(depsOf(ctx), ctx.body.refresh_token);
  return { data: tokens };
}

async function signOut(ctx: AuthenticatedContext<Empty, AccountsRouteServices>) {
  const session = requireUserSession(ctx.principal);
  await revokeSession(depsOf(ctx), session.userId, session.sessionId);
  return {};
}

async function getMe(ctx: AuthenticatedContext<Empty, AccountsRouteServices>) {
  return { data: await callerOf(depsOf(ctx), ctx.principal) };
}

async function updateMe(ctx: AuthenticatedContext<{ body: ProfileChange }, AccountsRouteServices>) {
  return {
    data: await updateProfile(depsOf(ctx), requireUserSession(ctx.principal).userId, ctx.body),
  };
}

async function enableTwoFactor(ctx: AuthenticatedContext<Empty, AccountsRouteServices>) {
  const deps = depsOf(ctx);
  const user = await signedInUser(deps, ctx.principal);
  return { data: await beginTwoFactorSetup(deps, user) };
}

async function confirmTwoFactorSetup(
  ctx: AuthenticatedContext<{ body: { code: string } }, AccountsRouteServices>,
) {
  const deps = depsOf(ctx);
  const user = await signedInUser(deps, ctx.principal);
  await confirmTwoFactor(deps, user, ctx.body.code, clientOf(ctx).ipAddress);
  return { data: { two_factor_enabled: true } };
}

async function turnOffTwoFactor(
  ctx: AuthenticatedContext<{ body: { code: string } }, AccountsRouteServices>,
) {
  const deps = depsOf(ctx);
  const user = await signedInUser(deps, ctx.principal);
  await disableTwoFactor(deps, user, ctx.body.code, clientOf(ctx).ipAddress);
  return {};
}

async function verifyTwoFactorLogin(
  ctx: PublicContext<{ body: { code: string; session_token: string } }, AccountsRouteServices>,
) {
  const { session_id: _session, ...tokens } = await completeTwoFactorLogin(
    depsOf(ctx),
    ctx.body,
    clientOf(ctx),
  );
  return { data: tokens };
}

async function changeOwnPassword(
  ctx: AuthenticatedContext<
    { body: { current_password: string; new_password: string } },
    AccountsRouteServices
  >,
) {
  await changePassword(depsOf(ctx), requireUserSession(ctx.principal), ctx.body, clientOf(ctx));
  return { data: { message: 'Password changed. Other sessions have been signed out.' } };
}

async function listOwnSessions(ctx: AuthenticatedContext<Empty, AccountsRouteServices>) {
  const session = requireUserSession(ctx.principal);
  return { data: await listSessions(depsOf(ctx), session.userId, session.sessionId) };
}

async function revokeOneSession(
  ctx: AuthenticatedContext<{ params: { id: string } }, AccountsRouteServices>,
) {
  await revokeSession(depsOf(ctx), requireUserSession(ctx.principal).userId, ctx.params.id);
  return {};
}

async function revokeOtherSessions(ctx: AuthenticatedContext<Empty, AccountsRouteServices>) {
  const session = requireUserSession(ctx.principal);
  await revokeSessions(depsOf(ctx), session.userId, {
    exceptSessionId: session.sessionId,
    reason: 'signed out elsewhere',
  });
  return {};
}

/** `/v1/auth`: registration, sign-in, tokens, two-factor, sessions and the caller's profile. */
export const accountsRoutes: RouteModule<AccountsRouteServices> = {
  area: 'accounts',
  routes: [
    defineRoute<{ body: { email: string; password: string; name: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/register',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Create an account and its organization; a verification e-mail is sent',
      request: {
        body: body({ email: EMAIL, password: NEW_PASSWORD, name: NAME }, ['email', 'password', 'name']),
      },
      responses: {
        201: {
          description: 'The account, not yet verified',
          schema: {
            type: 'object',
            required: ['user', 'message'],
            properties: {
              user: {
                type: 'object',
                required: ['id', 'email', 'name', 'email_verified'],
                properties: {
                  id: { type: 'string' },
                  email: { type: 'string' },
                  name: { type: 'string' },
                  email_verified: { type: 'boolean' },
                },
              },
              message: { type: 'string' },
            },
          },
        },
        400: { description: 'A field is missing or invalid (the password policy included)' },
        409: { description: '`email_taken`: the address already has an account' },
      },
      handler: registerAccount,
    }),
    defineRoute<{ body: { email: string; password: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/login',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Sign in with e-mail and password',
      request: { body: body({ email: EMAIL, password: PASSWORD }, ['email', 'password']) },
      responses: {
        200: {
          description: 'Signed in',
          schema: {
            type: 'object',
            required: ['token', 'expires_at', 'refresh_token', 'user'],
            properties: {
              ...TOKEN_RESULT_PROPERTIES,
              user: {
                type: 'object',
                required: ['id', 'email', 'name'],
                properties: { id: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
              },
            },
          },
        },
        401: { description: '`invalid_credentials`: wrong e-mail or password' },
        403: { description: '`2fa_required`, with the `session_token` that 2fa/verify takes' },
        429: LOCKED,
      },
      handler: signIn,
    }),
    defineRoute<{ body: { token: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/verify-email',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Verify the e-mail address with the token from the verification link, and sign in',
      request: { body: body({ token: OPAQUE_TOKEN }, ['token']) },
      responses: {
        200: {
          description: 'Verified and signed in',
          schema: {
            type: 'object',
            required: ['message', 'token', 'expires_at', 'refresh_token'],
            properties: { message: { type: 'string' }, ...TOKEN_RESULT_PROPERTIES },
          },
        },
        400: { description: '`invalid_token`: unknown, used or expired' },
        403: { description: '`2fa_required`: verified, but signing in needs the second factor' },
      },
      handler: verifyEmailAddress,
    }),
    defineRoute<{ body: { email: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/forgot-password',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'E-mail a password reset link; answers the same whether the account exists or not',
      request: { body: body({ email: EMAIL }, ['email']) },
      responses: { 200: { description: 'Accepted', schema: MESSAGE } },
      handler: forgotPassword,
    }),
    defineRoute<{ body: { email: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/resend-verification',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'E-mail a new verification link; answers the same whether the account exists or not',
      description: `At most ${VERIFICATION_MAILS_PER_HOUR} verification mails per address and hour.`,
      request: { body: body({ email: EMAIL }, ['email']) },
      responses: { 202: { description: 'Accepted', schema: MESSAGE } },
      handler: resendVerificationEmail,
    }),
    defineRoute<{ body: { token: string; password: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/reset-password',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Set a new password with the token from the reset link; every session ends',
      request: { body: body({ token: OPAQUE_TOKEN, password: NEW_PASSWORD }, ['token', 'password']) },
      responses: {
        200: { description: 'Password changed', schema: MESSAGE },
        400: {
          description: '`invalid_token` (unknown, used or expired), or a password outside the policy',
        },
      },
      handler: resetPasswordWithToken,
    }),
    defineRoute<{ body: { refresh_token: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/refresh',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Exchange a refresh token for a new access token and the next refresh token',
      description:
        'Each refresh token works once. Presenting a spent one again ends its session and every ' +
        'token of the session, the newest included.',
      request: { body: body({ refresh_token: OPAQUE_TOKEN }, ['refresh_token']) },
      responses: {
        200: { description: 'New tokens', schema: TOKEN_RESULT },
        401: { description: '`invalid_token`: unknown, spent, expired, or its session ended' },
      },
      handler: refreshTokens,
    }),
    defineRoute<Empty, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/logout',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'End the current session; its access and refresh tokens stop working at once',
      responses: { 204: { description: 'Signed out' } },
      handler: signOut,
    }),
    defineRoute<Empty, AccountsRouteServices>({
      method: 'get',
      path: '/v1/auth/me',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'The signed-in user, or the creator of the API key the call came with',
      description:
        'With an API key the answer also names the key and its scopes. Operations on the session ' +
        'itself (password, two-factor, sessions, profile changes) need a bearer token and answer ' +
        '403 to an API key.',
      responses: {
        200: {
          description: 'The user',
          schema: {
            ...USER,
            properties: {
              ...USER.properties,
              api_key: {
                type: 'object',
                description: 'Present when the call came with an API key',
                required: ['id', 'organization_id', 'scopes'],
                properties: {
                  id: { type: 'string' },
                  organization_id: { type: 'string' },
                  scopes: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
      },
      handler: getMe,
    }),
    defineRoute<{ body: ProfileChange }, AccountsRouteServices>({
      method: 'patch',
      path: '/v1/auth/me',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Change name or avatar, or switch the current organization',
      request: {
        body: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: {
            name: NAME,
            avatar_url: {
              type: ['string', 'null'],
              format: 'uri',
              pattern: '^https://',
              maxLength: 2048,
              description: 'An https URL, or null to remove the avatar',
            },
            current_organization_id: { type: 'string', minLength: 1, maxLength: 64 },
          },
        },
      },
      responses: {
        200: {
          description: 'The changed profile',
          schema: {
            type: 'object',
            required: ['id', 'name', 'avatar_url', 'current_organization_id'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              avatar_url: { type: ['string', 'null'] },
              current_organization_id: { type: ['string', 'null'] },
            },
          },
        },
        404: { description: 'The organization does not exist or the user is not a member' },
      },
      handler: updateMe,
    }),
    defineRoute<Empty, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/2fa/enable',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Start two-factor setup: a TOTP secret, its QR code and ten backup codes',
      description: 'Two-factor stays off until 2fa/confirm receives a code from the new secret.',
      responses: {
        200: {
          description: 'Setup data, shown this once',
          schema: {
            type: 'object',
            required: ['secret', 'qr_code_url', 'backup_codes'],
            properties: {
              secret: { type: 'string', description: 'Base32' },
              qr_code_url: { type: 'string', description: 'A data:image/png;base64 URL' },
              backup_codes: { type: 'array', items: { type: 'string' } },
            },
          },
        },
        409: { description: '`two_factor_already_enabled`' },
      },
      handler: enableTwoFactor,
    }),
    defineRoute<{ body: { code: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/2fa/confirm',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Turn two-factor on with a code from the authenticator app',
      request: { body: body({ code: CODE }, ['code']) },
      responses: {
        200: {
          description: 'Two-factor is on',
          schema: {
            type: 'object',
            required: ['two_factor_enabled'],
            properties: { two_factor_enabled: { type: 'boolean' } },
          },
        },
        400: { description: '`invalid_code`' },
        409: { description: '`two_factor_already_enabled` or `two_factor_not_pending`' },
        429: LOCKED,
      },
      handler: confirmTwoFactorSetup,
    }),
    defineRoute<{ body: { code: string } }, AccountsRouteServices>({
      method: 'delete',
      path: '/v1/auth/2fa',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Turn two-factor off with a code from the app or a backup code',
      request: { body: body({ code: CODE }, ['code']) },
      responses: {
        204: { description: 'Two-factor is off' },
        400: { description: '`invalid_code`' },
        409: { description: '`two_factor_not_enabled`' },
        429: LOCKED,
      },
      handler: turnOffTwoFactor,
    }),
    defineRoute<{ body: { code: string; session_token: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/2fa/verify',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Finish a login that answered 2fa_required',
      request: { body: body({ code: CODE, session_token: OPAQUE_TOKEN }, ['code', 'session_token']) },
      responses: {
        200: { description: 'Signed in', schema: TOKEN_RESULT },
        401: { description: '`invalid_code`, or `invalid_session_token` (unknown, used or expired)' },
        429: LOCKED,
      },
      handler: verifyTwoFactorLogin,
    }),
    defineRoute<{ body: { current_password: string; new_password: string } }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/change-password',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Change the password; every other session ends',
      request: {
        body: body({ current_password: PASSWORD, new_password: NEW_PASSWORD }, [
          'current_password',
          'new_password',
        ]),
      },
      responses: {
        200: { description: 'Password changed', schema: MESSAGE },
        400: { description: '`invalid_current_password`, or a new password outside the policy' },
        429: LOCKED,
      },
      handler: changeOwnPassword,
    }),
    defineRoute<Empty, AccountsRouteServices>({
      method: 'get',
      path: '/v1/auth/sessions',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: "The user's active sessions",
      responses: {
        200: {
          description: 'Sessions, most recently active first',
          schema: { type: 'array', items: SESSION },
        },
      },
      handler: listOwnSessions,
    }),
    defineRoute<{ params: { id: string } }, AccountsRouteServices>({
      method: 'delete',
      path: '/v1/auth/sessions/:id',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Revoke one session',
      request: {
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
      },
      responses: {
        204: { description: 'Revoked' },
        404: { description: 'No such active session of the user' },
      },
      handler: revokeOneSession,
    }),
    defineRoute<Empty, AccountsRouteServices>({
      method: 'delete',
      path: '/v1/auth/sessions',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Revoke every session but the current one',
      responses: { 204: { description: 'Revoked' } },
      handler: revokeOtherSessions,
    }),
  ],
};
