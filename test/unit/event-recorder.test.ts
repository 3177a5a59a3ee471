import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import type { CoreEvent } from '../../control-plane/event-objects.js';
import type { KubeObject } from '../../control-plane/types.js';
import { StoreEventRecorder } from '../../controllers/runtime/event-recorder.js';
import { statusTransitionEvent, withRuntimeStalled } from '../../controllers/runtime/status-events.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { FakeClock } from '../fixtures/fake-clock.js';

const vpc: KubeObject = {
  apiVersion: 'cloudplane.dev/v1alpha1',
  kind: 'Vpc',
  metadata: { name: 'web', namespace: 'org-1', uid: '6f1c3c55-0000-4000-8000-000000000001' },
};

describe('the event recorder (client-go’s correlator) on the embedded store', () => {
  let store: EmbeddedStore;
  let clock: FakeClock;
  let recorder: StoreEventRecorder;

  beforeEach(() => {
    store = openEmbeddedStore({ path: ':memory:', kinds: [EVENT_KIND] });
    clock = new FakeClock('2026-03-01T10:00:00Z');
    recorder = new StoreEventRecorder({
      store,
      clock,
      logger: capturedLogger().logger,
      component: 'cloudplane-controllers',
      instance: 'test-host',
    });
  });
  afterEach(async () => {
    await store.close();
  });

  const events = async (): Promise<CoreEvent[]> => {
    await recorder.flush();
    const list = await store.list(EVENT_KIND, { namespace: 'org-1' });
    return list.items as unknown as CoreEvent[];
  };

  it('writes a core v1 Event about the object, in its namespace, as client-go names it', async () => {
    recorder.normal(vpc, 'Available', 'the VPC and its default parts exist');
    const [event, ...others] = await events();
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'org-1' },
      involvedObject: {
        apiVersion: 'cloudplane.dev/v1alpha1',
        kind: 'Vpc',
        name: 'web',
        namespace: 'org-1',
        uid: vpc.metadata.uid,
      },
      type: 'Normal',
      reason: 'Available',
      message: 'the VPC and its default parts exist',
      count: 1,
      firstTimestamp: '2026-03-01T10:00:00.000Z',
      lastTimestamp: '2026-03-01T10:00:00.000Z',
      source: { component: 'cloudplane-controllers', host: 'test-host' },
      reportingComponent: 'cloudplane-controllers',
      reportingInstance: 'test-host',
    });
    expect(event!.metadata.name).toMatch(/^web\.[0-9a-f]+$/);
  });

  it('counts a repeat on the one Event: a failure retried every second for a minute is one Event of count 60', async () => {
    for (let second = 0; second < 60; second += 1) {
      recorder.warning(vpc, 'ReconcileFailed', 'the workload server is unreachable; retrying');
      await clock.advance(1000);
    }
    const written = await events();
    expect(written).toHaveLength(1);
    // The spam filter lets 25 writes through, then one per 5 minutes: the count written is the
    // 25th occurrence's until the next token, as client-go's correlator has it.
    expect(written[0]).toMatchObject({ type: 'Warning', reason: 'ReconcileFailed', count: 25 });
    await clock.advance(5 * 60_000);
    recorder.warning(vpc, 'ReconcileFailed', 'the workload server is unreachable; retrying');
    const [later] = await events();
    expect(later).toMatchObject({
      count: 61,
      firstTimestamp: '2026-03-01T10:00:00.000Z',
      lastTimestamp: '2026-03-01T10:06:00.000Z',
    });
    expect(later!.metadata.name).toBe(written[0]!.metadata.name);
  });

  it('masks the credentials of a URL quoted in a message: events are readable by the namespace', async () => {
    recorder.warning(
      vpc,
      'ReconcileFailed',
      'cannot reach postgres://admin:s3cret@db.internal:5432/app; retrying',
    );
    const [event] = await events();
    expect(event?.message).toBe('cannot reach postgres://***@db.internal:5432/app; retrying');
  });

  it('combines ten messages of one reason within ten minutes into one Event saying so', async () => {
    for (let attempt = 0; attempt < 12; attempt += 1) {
      recorder.warning(vpc, 'StepFailed', `step ${attempt} failed`);
      await clock.advance(1000);
    }
    const written = (await events()).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const combined = written.filter((event) => event.message?.startsWith('(combined from similar events): '));
    expect(written).toHaveLength(10);
    expect(combined).toHaveLength(1);
    expect(combined[0]).toMatchObject({
      count: 3,
      message: '(combined from similar events): step 11 failed',
    });
  });

  it('writes a repeat anew when its Event is gone (expired), keeping the count', async () => {
    recorder.normal(vpc, 'Provisioning', 'creating the default parts');
    const [first] = await events();
    await store.delete(EVENT_KIND, 'org-1', first!.metadata.name);
    await clock.advance(1000);
    recorder.normal(vpc, 'Provisioning', 'creating the default parts');
    const [second, ...others] = await events();
    expect(others).toEqual([]);
    expect(second!.metadata.name).not.toBe(first!.metadata.name);
    expect(second).toMatchObject({ count: 2, firstTimestamp: '2026-03-01T10:00:00.000Z' });
  });

  it('removes Events an hour after their last write, and keeps those written since', async () => {
    const expiring = openEmbeddedStore({
      path: ':memory:',
      kinds: [EVENT_KIND],
      now: () => clock.now(),
    });
    const writer = new StoreEventRecorder({
      store: expiring,
      clock,
      logger: capturedLogger().logger,
      component: 'cloudplane-controllers',
    });
    writer.normal(vpc, 'Provisioning', 'creating the default parts');
    writer.normal(vpc, 'Available', 'the VPC and its default parts exist');
    await clock.advance(50 * 60_000);
    writer.normal(vpc, 'Available', 'the VPC and its default parts exist');
    await writer.flush();
    await clock.advance(11 * 60_000);
    expect(await expiring.removeExpiredEvents()).toBe(1);
    const left = (await expiring.list(EVENT_KIND)).items as unknown as CoreEvent[];
    expect(left.map((event) => [event.reason, event.count])).toEqual([['Available', 2]]);
    await expiring.close();
  });
});

describe('the Event a status write deserves', () => {
  const ready = (status: string, reason: string, message = `${reason} message`) => ({
    type: 'Ready',
    status,
    reason,
    message,
    lastTransitionTime: '2026-03-01T10:00:00Z',
  });
  const stalled = { ...ready('True', 'CidrConflict'), type: 'Stalled' };

  it.each([
    [
      'none while Ready keeps status and reason',
      { conditions: [ready('False', 'Provisioning')] },
      { conditions: [ready('False', 'Provisioning', 'other')] },
      undefined,
    ],
    [
      'Normal when Ready becomes True',
      { conditions: [ready('False', 'Provisioning')] },
      { phase: 'available', conditions: [ready('True', 'Available')] },
      { type: 'Normal', reason: 'Available' },
    ],
    [
      'Normal for the first step of progress',
      undefined,
      { phase: 'provisioning', conditions: [ready('False', 'Provisioning')] },
      { type: 'Normal', reason: 'Provisioning' },
    ],
    [
      'Warning when the phase is a failure',
      { conditions: [ready('True', 'Running')] },
      { phase: 'degraded', conditions: [ready('False', 'ServerUnreachable')] },
      { type: 'Warning', reason: 'ServerUnreachable' },
    ],
    [
      'Warning when Stalled',
      undefined,
      { conditions: [ready('False', 'CidrConflict'), stalled] },
      { type: 'Warning', reason: 'CidrConflict' },
    ],
    ['none without a Ready condition', undefined, { phase: 'pending' }, undefined],
    [
      'Normal when disabled on purpose',
      { phase: 'connected', conditions: [ready('True', 'Connected')] },
      { phase: 'disconnected', conditions: [ready('False', 'Disabled')] },
      { type: 'Normal', reason: 'Disabled' },
    ],
  ])('%s', (_name, before, after, expected) => {
    const event = statusTransitionEvent(before, after);
    if (expected === undefined) expect(event).toBeUndefined();
    else expect(event).toMatchObject(expected);
  });
});

describe('Stalled as the runtime keeps it (kstatus: Failed)', () => {
  const now = new Date('2026-03-01T10:00:00Z');
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status: status as 'True' | 'False',
    reason,
    message: `${reason} message`,
    lastTransitionTime: '2026-03-01T09:00:00.000Z',
  });
  const types = (status: { conditions?: { type: string; status: string; reason: string }[] }) =>
    (status.conditions ?? []).map((entry) => `${entry.type}=${entry.status}:${entry.reason}`);

  it.each([
    [
      'sets Stalled with Ready’s reason while the phase is a failure',
      undefined,
      { phase: 'error', conditions: [condition('Ready', 'False', 'ServerUnreachable')] },
      ['Ready=False:ServerUnreachable', 'Stalled=True:ServerUnreachable'],
    ],
    [
      'removes its Stalled once Ready moves on',
      {
        phase: 'error',
        conditions: [
          condition('Ready', 'False', 'CidrConflict'),
          condition('Stalled', 'True', 'CidrConflict'),
        ],
      },
      {
        phase: 'provisioning',
        conditions: [
          condition('Ready', 'False', 'Provisioning'),
          condition('Stalled', 'True', 'CidrConflict'),
        ],
      },
      ['Ready=False:Provisioning'],
    ],
    [
      'leaves a Stalled the controller writes itself',
      undefined,
      {
        phase: 'services',
        conditions: [condition('Ready', 'False', 'Failed'), condition('Stalled', 'True', 'ExecutionFailed')],
      },
      ['Ready=False:Failed', 'Stalled=True:ExecutionFailed'],
    ],
    [
      'adds nothing to an integration disabled on purpose',
      undefined,
      { phase: 'disconnected', conditions: [condition('Ready', 'False', 'Disabled')] },
      ['Ready=False:Disabled'],
    ],
    [
      'adds nothing while progressing',
      undefined,
      { phase: 'provisioning', conditions: [condition('Ready', 'False', 'Provisioning')] },
      ['Ready=False:Provisioning'],
    ],
  ])('%s', (_name, before, after, expected) => {
    expect(types(withRuntimeStalled(before, after, now))).toEqual(expected);
  });
});
