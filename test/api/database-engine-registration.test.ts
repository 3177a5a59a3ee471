/**
 * A database engine is one declaration registered in the engine list: an engine registered here,
 * in the test alone, is offered by `GET /v1/databases/versions`, taken and refused by the REST
 * validation, written as a Database object the CRD's schema accepts, and answered by the local
 * runtime, which has no server for it, as recorded.
 */
import { expect, it } from 'vitest';
import { registerDatabaseEngine } from '../../crds/database-engines/index.js';

// Before the platform's modules load: route and template schemas are built from the list then.
registerDatabaseEngine({
  name: 'testdb',
  product: 'TestDB',
  aliases: ['tdb'],
  versions: ['1', '2'],
  defaultVersion: '2',
  sizedBy: 'storage',
  port: 7777,
});
const { useSignedInPlatform } = await import('../fixtures/signed-in-platform.js');
const { eventually } = await import('../fixtures/eventually.js');

type Json = Record<string, unknown>;
const call = useSignedInPlatform();
const data = (answer: { body: Json }) => answer.body.data as Json;
const errorOf = (answer: { body: Json }) => answer.body.error as { code: string; message: string };

it('offers the registered engine after the built-in ones', async () => {
  const answer = await call('GET', '/v1/databases/versions');
  expect(answer.status).toBe(200);
  expect((data(answer) as unknown as Json[]).map((offer) => offer.engine)).toEqual([
    'postgresql',
    'mysql',
    'redis',
    'mongodb',
    'testdb',
  ]);
  expect((data(answer) as unknown as Json[]).at(-1)).toEqual({
    engine: 'testdb',
    product: 'TestDB',
    aliases: ['tdb'],
    versions: ['1', '2'],
    default_version: '2',
    sized_by: 'storage_gb',
  });
});

it('refuses a version the engine does not offer, and names it among the engines', async () => {
  const version = await call('POST', '/v1/databases', { name: 'old', engine: 'testdb', version: '3' });
  expect(version.status).toBe(422);
  expect(errorOf(version).message).toMatch(/testdb version must be one of 1, 2/);
  const engine = await call('POST', '/v1/databases', { name: 'none', engine: 'nosuchdb' });
  expect(engine.status).toBe(422);
  expect(errorOf(engine).message).toMatch(/mongodb, testdb \(or tdb\)/);
});

it('creates a database of it by its other name, which the local runtime only records, saying why', async () => {
  const created = await call('POST', '/v1/databases', { name: 'tested', engine: 'tdb', version: '1' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(data(created)).toMatchObject({ engine: 'testdb', version: '1', storage_gb: 10, memory_mb: null });
  const id = data(created).id as string;
  // The runtime's answer, once the controller has asked it.
  await eventually(async () => {
    expect(data(await call('GET', `/v1/databases/${id}`))).toMatchObject({
      status: 'recorded',
      realization: 'recorded',
      endpoint: null,
      message: 'TestDB is only recorded on this machine: no local server is registered for it',
    });
  }, 30_000);
  const listed = await call('GET', '/v1/databases?engine=tdb');
  expect((data(listed) as unknown as Json[]).map((row) => row.id)).toEqual([id]);
  expect((await call('DELETE', `/v1/databases/${id}`)).status).toBe(204);
}, 60_000);
