/** Signing up and in (with the two-factor step), e-mail verification and password reset. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { CloudplaneError, dataOf } from '../../../sdk/index.ts';
import { Link } from '../components/link.tsx';
import { type FormAction, TextInput } from '../components/form.tsx';
import { ErrorNotice, useAction } from '../components/ui.tsx';
import { navigate, useLocation } from '../router.ts';
import { publicApi, signedIn } from '../session.ts';

function AuthFrame({ title, children }: { title: string; children: ComponentChildren }) {
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

/** A sign-in page's form: its fields, the action's error, one submit button. */
function AuthForm({
  action,
  submit,
  disabled = false,
  children,
}: {
  action: FormAction;
  submit: string;
  disabled?: boolean;
  children: ComponentChildren;
}) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void action.run();
      }}
    >
      {children}
      <ErrorNotice error={action.error} />
      <button type="submit" class="primary" disabled={action.busy || disabled}>
        {submit}
      </button>
    </form>
  );
}

/** A new password's input: the length the API asks for, and the browser may offer a strong one. */
function NewPassword(props: {
  label: string;
  name?: string;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <TextInput
      id="password"
      hint="At least 8 characters."
      type="password"
      autocomplete="new-password"
      minLength={8}
      {...props}
    />
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
        <AuthForm action={verify} submit="Verify">
          <TextInput
            id="code"
            label="Authentication code"
            hint="The six digits your authenticator app shows, or a backup code."
            name="code"
            autocomplete="one-time-code"
            inputMode="numeric"
            autoFocus
            value={code}
            onValue={setCode}
          />
        </AuthForm>
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
      <AuthForm action={signIn} submit="Sign in">
        <TextInput
          id="email"
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          value={email}
          onValue={setEmail}
        />
        <TextInput
          id="password"
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
        />
      </AuthForm>
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
      <AuthForm action={register} submit="Create account">
        <TextInput id="name" label="Name" name="name" autocomplete="name" value={name} onValue={setName} />
        <TextInput
          id="email"
          label="Email"
          name="email"
          type="email"
          autocomplete="email"
          value={email}
          onValue={setEmail}
        />
        <NewPassword label="Password" name="password" value={password} onValue={setPassword} />
      </AuthForm>
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
        <AuthForm action={send} submit="Send reset link">
          <TextInput
            id="email"
            label="Email"
            type="email"
            autocomplete="email"
            value={email}
            onValue={setEmail}
          />
        </AuthForm>
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
        <AuthForm action={reset} submit="Set password" disabled={!token}>
          <NewPassword label="New password" value={password} onValue={setPassword} />
        </AuthForm>
      )}
      <p class="auth-links">
        <Link href="/sign-in">Sign in</Link>
      </p>
    </AuthFrame>
  );
}
