/** Forms: a text input in its labelled field, and a card form that runs one action. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNotice, Field } from './ui.tsx';

/** The input attributes the console's forms set besides its value. */
interface InputAttributes {
  type?: 'text' | 'number' | 'email' | 'password';
  name?: string;
  min?: number;
  max?: number;
  minLength?: number;
  autocomplete?: string;
  inputMode?: 'numeric' | 'text';
  autoFocus?: boolean;
  required?: boolean;
}

/** A required input in its `Field`, its hint tied to it; `onValue` receives the typed text. */
export function TextInput({
  id,
  label,
  hint,
  value,
  onValue,
  type,
  required = true,
  ...attributes
}: InputAttributes & {
  id: string;
  label: string;
  hint?: string;
  value: string | number;
  onValue: (value: string) => void;
}) {
  return (
    <Field id={id} label={label} hint={hint}>
      {(describedBy) => (
        <input
          id={id}
          // Preact types each input type apart; these four take the same attributes here.
          type={type as 'text' | undefined}
          required={required}
          aria-describedby={describedBy}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
          {...attributes}
        />
      )}
    </Field>
  );
}

/** A choice among fixed words in its `Field`; `onValue` receives the chosen one. */
export function SelectInput<T extends string>({
  id,
  label,
  choices,
  value,
  onValue,
}: {
  id: string;
  label: string;
  choices: readonly T[];
  value: T;
  onValue: (value: T) => void;
}) {
  return (
    <Field id={id} label={label}>
      {() => (
        <select id={id} value={value} onChange={(event) => onValue(event.currentTarget.value as T)}>
          {choices.map((choice) => (
            <option key={choice}>{choice}</option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** What `useAction` returns, as far as a form needs it. */
export interface FormAction {
  busy: boolean;
  error: unknown;
  run: () => Promise<void>;
}

/**
 * A card form named by its heading: its fields, then the action's error, then the submit button,
 * disabled while the action runs.
 */
export function ActionForm({
  id,
  heading,
  level = 2,
  action,
  submit,
  disabled = false,
  class: className = 'card form-grid',
  children,
}: {
  id: string;
  heading: string;
  level?: 2 | 3;
  action: FormAction;
  submit: string;
  disabled?: boolean;
  class?: string;
  children: ComponentChildren;
}) {
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <form
      class={className}
      aria-labelledby={id}
      onSubmit={(event) => {
        event.preventDefault();
        void action.run();
      }}
    >
      <Heading id={id}>{heading}</Heading>
      {children}
      <ErrorNotice error={action.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={action.busy || disabled}>
          {submit}
        </button>
      </div>
    </form>
  );
}

/** A destructive button that asks first; `label` names what it acts on for assistive technology. */
export function ConfirmButton({
  question,
  onConfirm,
  label,
  disabled,
  children,
}: {
  question: string;
  onConfirm: () => void;
  label?: string;
  disabled?: boolean;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class="danger"
      aria-label={label}
      disabled={disabled}
      onClick={() => {
        if (confirm(question)) onConfirm();
      }}
    >
      {children}
    </button>
  );
}

/**
 * A secret the API shows this once (a new key, a generated password, a token), with a button that
 * copies it to the clipboard, until the reader is done.
 */
export function ShownOnce({
  secret,
  testId,
  onDone,
  children,
}: {
  secret: string;
  testId: string;
  onDone: () => void;
  children: ComponentChildren;
}) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied('yes'),
      // A browser without clipboard access (an insecure origin, a refused permission): say so.
      () => setCopied('failed'),
    );
  return (
    <div class="notice" role="status">
      <p>{children}</p>
      <p>
        <code class="secret" data-testid={testId}>
          {secret}
        </code>
      </p>
      <div class="form-actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === 'yes' && <p>Copied to the clipboard.</p>}
      {copied === 'failed' && <p>The browser refused the clipboard: select the text and copy it.</p>}
    </div>
  );
}
