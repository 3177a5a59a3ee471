/**
 * The services phase: helm releases with their values resolved when the step starts. Installed
 * and waited for in a cluster; rendered and recorded in the embedded mode (the runtime says which).
 */
import { WorkloadError, type ReleaseWorkload } from '../../workloads/runtime.js';
import { removeEntry, saveEntry } from './records.js';
import { digestOf, resolveNow, StepFailure, type StepContext, type StepOutcome } from './step-context.js';
import { timeoutMsOf, type TemplateService } from './template.js';

const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;

function releaseOf(
  context: StepContext,
  name: string,
  service: TemplateService,
  values: Record<string, unknown>,
) {
  return {
    id: `${context.stack.metadata.name}-${name}`.toLowerCase().replace(/[^a-z0-9-]/g, '-'),
    organization: context.key.namespace,
    chart: service.properties.chart,
    ...(service.properties.version === undefined ? {} : { version: service.properties.version }),
    values,
    timeoutMs: timeoutMsOf(service.properties.timeout, DEFAULT_TIMEOUT_MS),
  } satisfies ReleaseWorkload;
}

export async function applyService(
  context: StepContext,
  name: string,
  service: TemplateService,
): Promise<StepOutcome> {
  const resolved = await resolveNow(
    context,
    service.properties.values ?? {},
    `services.${name}.properties.values`,
  );
  const values = resolved.value as Record<string, unknown>;
  // Resolved values may hold secrets: only their digest is kept, to see when they change.
  const valuesDigest = digestOf([service, values]);
  const previous = context.entries.get(`services.${name}`);
  if (previous?.attributes.values_digest === valuesDigest) return { state: 'done', message: 'unchanged' };

  const release = releaseOf(context, name, service, values);
  let observation;
  try {
    observation = await context.runtime.releases.install(release);
  } catch (error) {
    if (error instanceof WorkloadError) throw new StepFailure(`services.${name}: ${error.message}`);
    throw error;
  }
  await saveEntry(
    context.database,
    context.key,
    {
      section: 'services',
      name,
      config: service,
      attributes: {
        release: observation.release,
        namespace: observation.namespace,
        status: observation.state,
        endpoint: `${observation.release}.${observation.namespace}.svc.cluster.local`,
        values_digest: valuesDigest,
        ...(observation.revision === undefined ? {} : { revision: String(observation.revision) }),
        ...(observation.message ? { message: observation.message } : {}),
      },
      artifact: observation.manifest,
    },
    context.clock.now(),
  );
  return { state: 'done', ...(observation.message ? { message: observation.message } : {}) };
}

export async function removeService(context: StepContext, name: string): Promise<StepOutcome> {
  const entry = context.entries.get(`services.${name}`);
  const service = entry?.config as TemplateService | undefined;
  if (service) {
    try {
      await context.runtime.releases.uninstall(releaseOf(context, name, service, {}));
    } catch (error) {
      if (error instanceof WorkloadError) throw new StepFailure(`services.${name}: ${error.message}`);
      throw error;
    }
  }
  await removeEntry(context.database, context.key, 'services', name);
  return { state: 'done' };
}
