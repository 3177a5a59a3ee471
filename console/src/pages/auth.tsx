/** Signing up and in (with the two-factor step), e-mail verification and password reset. */
import { useEffect, useState } from 'preact/hooks';
import { CloudplaneError, dataOf } from '../../../sdk/index.ts';
import { Link } from '../components/link.tsx';
import { ErrorNotice, Field, useAction } from '../components/ui.tsx';
import { navigate, useLocation } from '../router.ts';
import { publicApi, signedIn } from '../session.ts';

function AuthFrame({ title, children }: { title: string; children: preact.ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · cloudplane`;
  }, [title]);
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand" aria-hidden="true">
          cloudplane
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function SignIn({ notice }: { notice?: string | undefined }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string>();
  const [code, setCode] = useState('');
  const signIn = useAction(async () => {
    try {
      await signedIn(dataOf(await publicApi.POST('/v1/auth/login', { body: { email, password } })));
    } catch (error) {
      if (error instanceof CloudplaneError && error.code === '2fa_required') {
        setChallenge(String(error.details.session_token));
        return;
      }
      throw error;
    }
  });
  const verify = useAction(async () => {
    await signedIn(
      dataOf(
        await publicApi.POST('/v1/auth/2fa/verify', {
          body: { code: code.trim(), session_token: challenge! },
        }),
      ),
    );
  });

  if (challenge) {
    return (
      <AuthFrame title="Two-factor code">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void verify.run();
          }}
        >
          <Field
            id="code"
            label="Authentication code"
            hint="The six digits your authenticator app shows, or a backup code."
          >
            {(describedBy) => (
              <input
                id="code"
                name="code"
                autocomplete="one-time-code"
                inputMode="numeric"
                required
                autoFocus
                aria-describedby={describedBy}
                value={code}
                onInput={(event) => setCode(event.currentTarget.value)}
              />
            )}
          </Field>
          <ErrorNotice error={verify.error} />
          <button type="submit" class="primary" disabled={verify.busy}>
            Verify
          </button>
        </form>
      </AuthFrame>
    );
  }

  return (
    <AuthFrame title="Sign in">
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void signIn.run();
        }}
      >
        <Field id="email" label="Email">
          {() => (
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="username"
              required
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="password" label="Password">
          {() => (
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
          )}
        </Field>
        <ErrorNotice error={signIn.error} />
        <button type="submit" class="primary" disabled={signIn.busy}>
          Sign in
        </button>
      </form>
      <p class="auth-links">
        <Link href="/sign-up">Create an account</Link> ·{' '}
        <Link href="/forgot-password">Forgot your password?</Link>
      </p>
    </AuthFrame>
  );
}

export function SignUp() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<string>();
  const register = useAction(async () => {
    const answer = dataOf(await publicApi.POST('/v1/auth/register', { body: { name, email, password } }));
    setMessage(answer.message);
  });
  if (message) {
    return (
      <AuthFrame title="Check your e-mail">
        <p role="status">{message}</p>
        <p>
          <Link href="/sign-in">Sign in</Link>
        </p>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title="Create your account">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void register.run();
        }}
      >
        <Field id="name" label="Name">
          {() => (
            <input
              id="name"
              name="name"
              autocomplete="name"
              required
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="email" label="Email">
          {() => (
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="email"
              required
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="password" label="Password" hint="At least 8 characters.">
          {(describedBy) => (
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="new-password"
              required
              minLength={8}
              aria-describedby={describedBy}
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
          )}
        </Field>
        <ErrorNotice error={register.error} />
        <button type="submit" class="primary" disabled={register.busy}>
          Create account
        </button>
      </form>
      <p class="auth-links">
        Have an account? <Link href="/sign-in">Sign in</Link>
      </p>
    </AuthFrame>
  );
}

/** The page the verification mail links to (`/verify-email?token=…`): verifying signs the user in. */
export function VerifyEmail() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!token) return setError(new Error('This link has no verification token.'));
    publicApi
      .POST('/v1/auth/verify-email', { body: { token } })
      .then(async (answer) => {
        const result = dataOf(answer);
        navigate('/', { replace: true });
        await signedIn(result);
      })
      .catch(setError);
  }, [token]);
  return (
    <AuthFrame title="Verifying your e-mail">
      {error ? <ErrorNotice error={error} /> : <p role="status">Verifying…</p>}
      <p>
        <Link href="/sign-in">Sign in</Link>
      </p>
    </AuthFrame>
  );
}

export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState<string>();
  const send = useAction(async () => {
    setMessage(dataOf(await publicApi.POST('/v1/auth/forgot-password', { body: { email } })).message);
  });
  return (
    <AuthFrame title="Reset your password">
      {message ? (
        <p role="status">{message}</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void send.run();
          }}
        >
          <Field id="email" label="Email">
            {() => (
              <input
                id="email"
                type="email"
                autocomplete="email"
                required
                value={email}
                onInput={(event) => setEmail(event.currentTarget.value)}
              />
            )}
          </Field>
          <ErrorNotice error={send.error} />
          <button type="submit" class="primary" disabled={send.busy}>
            Send reset link
          </button>
        </form>
      )}
      <p class="auth-links">
        <Link href="/sign-in">Back to sign in</Link>
      </p>
    </AuthFrame>
  );
}

/** The page the reset mail links to (`/reset-password?token=…`). */
export function ResetPassword() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<string>();
  const reset = useAction(async () => {
    setMessage(
      dataOf(await publicApi.POST('/v1/auth/reset-password', { body: { token, password } })).message,
    );
  });
  return (
    <AuthFrame title="Choose a new password">
      {message ? (
        <p role="status">{message}</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void reset.run();
          }}
        >
          <Field id="password" label="New password" hint="At least 8 characters.">
            {(describedBy) => (
              <input
                id="password"
                type="password"
                autocomplete="new-password"
                required
                minLength={8}
                aria-describedby={describedBy}
                value={password}
                onInput={(event) => setPassword(event.currentTarget.value)}
              />
            )}
          </Field>
          <ErrorNotice error={reset.error} />
          <button type="submit" class="primary" disabled={reset.busy || !token}>
            Set password
          </button>
        </form>
      )}
      <p class="auth-links">
        <Link href="/sign-in">Sign in</Link>
      </p>
    </AuthFrame>
  );
}
