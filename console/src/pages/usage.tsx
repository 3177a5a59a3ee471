/** Usage and cost for a period: a chart per meter with its caption, and the cost table in dollars. */
import { useState } from 'preact/hooks';
import { ResourceTable } from '../components/table.tsx';
import { ErrorNotice, Field, formatDate, Page, useLoad } from '../components/ui.tsx';
import { api } from '../session.ts';
import { dollars, meterBars } from '../usage-chart.ts';

const BAR_HEIGHT = 28;
const LABEL_WIDTH = 230;
const CHART_WIDTH = 640;

export function Usage() {
  const [period, setPeriod] = useState('current');
  const report = useLoad(async () => {
    const [usage, costs] = await Promise.all([
      api.GET('/api/v1/usage'),
      api.GET('/api/v1/usage/costs', { params: { query: { period } } }),
    ]);
    return { usage: usage.data!, costs: costs.data! };
  }, [period]);
  const usage = report.data?.usage;
  const costs = report.data?.costs;
  const bars =
    usage && costs
      ? meterBars(
          (usage.meters ?? []).map((meter) => ({
            meter: meter.meter ?? '',
            unit: meter.unit ?? '',
            quantity: meter.quantity ?? 0,
          })),
          (costs.line_items ?? []).map((line) => ({
            meter: line.meter ?? '',
            amount_cents: line.amount_cents ?? 0,
          })),
        )
      : [];
  const barArea = CHART_WIDTH - LABEL_WIDTH - 90;
  return (
    <Page title="Usage">
      <form class="inline-form" onSubmit={(event) => event.preventDefault()}>
        <Field id="usage-period" label="Period">
          {() => (
            <select
              id="usage-period"
              value={period}
              onChange={(event) => setPeriod(event.currentTarget.value)}
            >
              <option value="current">This month</option>
              <option value="previous">Last month</option>
            </select>
          )}
        </Field>
      </form>
      <ErrorNotice error={report.error} />
      {costs && (
        <figure class="chart card">
          <svg
            viewBox={`0 0 ${CHART_WIDTH} ${Math.max(1, bars.length) * BAR_HEIGHT + 8}`}
            role="img"
            aria-labelledby="usage-chart-caption"
            preserveAspectRatio="xMinYMin meet"
          >
            {bars.map((bar, index) => {
              const y = index * BAR_HEIGHT + 4;
              return (
                <g key={bar.meter}>
                  <text x={0} y={y + 17} class="chart-label">
                    {bar.meter}
                  </text>
                  <rect
                    x={LABEL_WIDTH}
                    y={y + 4}
                    width={Math.max(1, bar.costShare * barArea)}
                    height={BAR_HEIGHT - 10}
                    class="chart-bar"
                    rx={3}
                  />
                  <text
                    x={LABEL_WIDTH + Math.max(1, bar.costShare * barArea) + 6}
                    y={y + 17}
                    class="chart-value"
                  >
                    {dollars(bar.amountCents)}
                  </text>
                </g>
              );
            })}
            {bars.length === 0 && (
              <text x={0} y={20} class="chart-label">
                No usage recorded in this period.
              </text>
            )}
          </svg>
          <figcaption id="usage-chart-caption">
            Cost per meter from {formatDate(costs.period?.start)} to {formatDate(costs.period?.end)}, total{' '}
            {dollars(costs.total_cents ?? 0)}
            {usage?.updated_at
              ? `; usage aggregated up to ${formatDate(usage.updated_at)}`
              : '; no usage aggregated yet'}
            .
          </figcaption>
        </figure>
      )}
      {bars.length > 0 && (
        <ResourceTable
          label="Usage per meter"
          caption
          columns={['Meter', { label: 'Quantity', number: true }, 'Unit', { label: 'Cost', number: true }]}
          rows={bars}
          empty="No usage."
          row={(bar) => (
            <tr key={bar.meter}>
              <td>{bar.meter}</td>
              <td class="number">{bar.quantity.toLocaleString()}</td>
              <td>{bar.unit}</td>
              <td class="number">{dollars(bar.amountCents)}</td>
            </tr>
          )}
        />
      )}
      {costs && (
        <ResourceTable
          label="Cost lines in US dollars"
          caption
          columns={[
            'Resource',
            'Meter',
            { label: 'Quantity', number: true },
            { label: 'Unit price', number: true },
            { label: 'Amount', number: true },
          ]}
          rows={costs.line_items ?? []}
          empty="Nothing charged in this period."
          row={(line, index) => (
            <tr key={`${line.resource_id}-${line.meter}-${index}`}>
              <td>{line.description ?? line.resource_id}</td>
              <td>{line.meter}</td>
              <td class="number">
                {line.quantity?.toLocaleString()} {line.unit}
              </td>
              <td class="number">{dollars(line.unit_price_cents ?? 0)}</td>
              <td class="number">{dollars(line.amount_cents ?? 0)}</td>
            </tr>
          )}
          footer={
            <tr>
              <th scope="row" colSpan={4}>
                Total
              </th>
              <td class="number">{dollars(costs.total_cents ?? 0)}</td>
            </tr>
          }
        />
      )}
    </Page>
  );
}
