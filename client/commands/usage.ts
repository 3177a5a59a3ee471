/** `usage`: this month's usage per meter, and what it costs. */
import { Command } from 'commander';
import { answerOf, Invocation, withExamples, type ClientEnvironment } from '../invocation.js';
import { renderTable } from '../output.js';

const dollars = (cents: number | undefined) => `$${((cents ?? 0) / 100).toFixed(2)}`;

export function usageCommand(environment: ClientEnvironment): Command {
  const usage = new Command('usage')
    .description("the organization's usage this month, per meter")
    .action(async (_flags: object, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const answer = answerOf(await run.api().GET('/api/v1/usage'));
      const meters = answer.meters ?? [];
      run.print(answer, () =>
        meters.length === 0
          ? `No usage from ${answer.period?.start ?? ''} to ${answer.period?.end ?? ''} yet.\n`
          : renderTable(meters, [
              { header: 'meter', value: (row) => row.meter },
              { header: 'quantity', value: (row) => row.quantity },
              { header: 'unit', value: (row) => row.unit },
              { header: 'included', value: (row) => row.included },
              { header: 'billable', value: (row) => row.billable },
            ]),
      );
    });

  withExamples(
    usage
      .command('costs')
      .description("what a month's usage costs, per resource and meter")
      .option('--period <month>', 'current, previous or a month such as 2026-03 (default: current)')
      .action(async (flags: { period?: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const query = flags.period === undefined ? {} : { period: flags.period };
        const answer = answerOf(await run.api().GET('/api/v1/usage/costs', { params: { query } }));
        const items = answer.line_items ?? [];
        run.print(
          answer,
          () =>
            renderTable(items, [
              { header: 'resource', value: (row) => `${row.resource_type ?? ''}/${row.resource_id ?? ''}` },
              { header: 'meter', value: (row) => row.meter },
              { header: 'quantity', value: (row) => `${row.quantity ?? 0} ${row.unit ?? ''}` },
              { header: 'amount', value: (row) => dollars(row.amount_cents) },
            ]) + `total ${dollars(answer.total_cents)} ${answer.currency ?? ''}\n`,
        );
      }),
    ['cloudplane usage costs', 'cloudplane usage costs --period 2026-03 -o json'],
  );
  return withExamples(usage, ['cloudplane usage', 'cloudplane usage -o yaml']);
}
