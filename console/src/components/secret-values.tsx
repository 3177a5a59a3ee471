/** A secret's keys with their values, shown once the reader asked to reveal them. */
export function SecretValues({ values, testId }: { values: Record<string, unknown>; testId: string }) {
  return (
    <dl class="facts secret-values" data-testid={testId}>
      {Object.entries(values).map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>
            <code>{String(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
