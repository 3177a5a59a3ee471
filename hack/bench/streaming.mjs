// Produce and read-back throughput of the embedded Kafka-protocol broker, against NATS JetStream on
// this machine and against the broker's own log store without the network, in one run.
//
//   npm run bench:streaming                              # builds, then 3 rounds of 50,000 records
//   BENCH_RECORDS=100000 BENCH_ROUNDS=5 npm run bench:streaming
//   BENCH_NATS_URL=127.0.0.1:4222                        # where JetStream answers (the default)
//   BENCH_PROFILE_DIR=/tmp/prof npm run bench:streaming  # a CPU profile of the broker process
//   BENCH_KINDS=plain,idempotent npm run bench:streaming # only these producer kinds (keys of KINDS)
//   BENCH_BEFORE=/tmp/before npm run bench:streaming     # also the broker of a checkout built there:
//       git archive HEAD~1 | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/ &&
//       (cd /tmp/before && npx tsc -p tsconfig.build.json)
//
// The load: records of 1 KiB, sent as batches of BATCH_RECORDS with SENDS_IN_FLIGHT sends awaiting
// their acknowledgement at any time, so BATCH_RECORDS × SENDS_IN_FLIGHT records are in flight.
//   - broker: `cloudplane`'s local streaming runtime in a child process (dist/, TLS, SCRAM-SHA-512,
//     one broker, a topic of one partition per round, kept to the end: kafkajs keeps asking for
//     the metadata of every topic it has sent to, so a deleted one fails its next send); kafkajs `send` with acks=-1, latency per
//     send; then a consumer group reading the topic back from the beginning (eachBatch).
//   - idempotent: the same with kafkajs's idempotent producer (InitProducerId, sequence numbers
//     checked and kept with the log in the same commit; not read back). kafkajs holds one produce
//     per broker in flight for an idempotent producer, so its sends queue in the client.
//   - broker serial: the plain producer with one send at a time, so one produce request in flight
//     as the idempotent one has: idempotent/broker serial is what the idempotence itself costs,
//     idempotent/broker what the clients' narrower pipeline costs on top (not read back).
//   - broker osflush, idempotent osflush (and kcat's): the plain and the idempotent producer on a
//     topic created with Kafka's default flush (flush.messages=Long.MAX): answered once written to
//     the OS, before any fsync, as Kafka answers acks=all (not read back); the other kinds use
//     the platform's default, every append fsynced before it is answered.
//   - kcat, kcat idempotent: librdkafka producing the same records from stdin (`kcat -P`, acks=-1,
//     then `-X enable.idempotence=true`); the rate is the whole run's, so no latency per send. The
//     plain run's records are read back by `kcat -C` (librdkafka's consumer, no group): the
//     broker's fetch without kafkajs's decoding in JavaScript. An idempotent librdkafka producer
//     keeps at most 5 *messages* in flight per partition (its check counts messages, not
//     requests), so with batches of hundreds it sends one request at a time; kcat serial is the
//     plain producer held to that (`max.in.flight=1`, not read back), which still builds its next
//     request while one is in flight, where the idempotent one waits for the answer.
//   - JetStream: a file-backed stream on a subject of its own per round; `js.publish` of each
//     record awaiting its ack, with as many records in flight as the broker gets, latency per
//     publish; then a pull consumer reading it back, acknowledging cumulatively (AckPolicy.All).
//   - raw store: `SqliteLogStore.append` of the same batches, as many in flight, in this process:
//     the cost of the group commit (insert + fsync) alone, the floor under the broker.
//   - batch check: the broker's check of each produced batch (`splitBatches`: header, CRC-32C over
//     all its bytes) alone, in this process, once per send; with BENCH_BEFORE, the other build's too.
// Durability differs: the broker (but its osflush kinds) and the raw store answer after the fsync
// of each group commit (SQLite WAL, fsynced on libuv's thread pool); JetStream, as configured by default, answers once the record is
// written and fsyncs its files every `sync_interval` (2 minutes).
// Rounds interleave the three systems (the machine is shared and noisy); the figures are medians.
// With BENCH_BEFORE, the broker started first (this checkout's) measured up to a fifth more CPU
// per record than the other with the same code: run it from each checkout to compare two builds.
// Read-back rates run from the first record received to the last, so a group join is not counted.
import { Buffer } from 'node:buffer';
import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  BEFORE,
  BEFORE_ROOT,
  comparedWithBefore,
  deadline,
  dist,
  distOf,
  nextMessage,
  serveAsChild,
  stopChild,
} from './harness.mjs';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NATS_URL = process.env.BENCH_NATS_URL ?? '127.0.0.1:4222';
const RECORD_BYTES = 1024;
const BATCH_RECORDS = 100;
const SENDS_IN_FLIGHT = 8;
const WARMUP_RECORDS = 10_000;
const RUN_LIMIT_SECONDS = 1800;
const USER = { name: 'bench', password: 'benchmark passphrase' };
const value = randomBytes(RECORD_BYTES);

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs in the child: one streaming cluster, one user allowed every `bench…` topic and group; the
 * broker of the checkout at `root` (built), or of this one.
 */
async function serveBroker(root) {
  const [{ createLocalStreaming }, { scramCredential }, { pino }] = await Promise.all([
    import(distOf(root, 'workloads/local/streaming.js')),
    import(distOf(root, 'security/scram.js')),
    import('pino'),
  ]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-streaming-'));
  const port = await freePort();
  const streaming = createLocalStreaming({
    dir,
    advertisedHost: '127.0.0.1',
    ports: { first: port, last: port },
    logger: pino({ level: 'warn' }),
  });
  const workload = {
    id: 'esc_bench',
    organization: 'org_bench',
    tier: 'starter',
    limits: { brokers: 1, partitions: null, storageBytes: null, retentionMaxMs: null },
  };
  const observed = await streaming.ensureCluster(workload);
  await streaming.ensureUser(workload, {
    name: USER.name,
    credential: scramCredential(USER.password),
    consumerGroup: 'bench*',
    acls: [
      {
        resourceType: 'topic',
        patternType: 'prefixed',
        name: 'bench',
        operations: ['read', 'write', 'describe', 'create', 'delete'],
        permission: 'allow',
      },
    ],
  });
  return {
    port,
    details: { brokers: observed.bootstrapServers, ca: observed.caCertificate },
    async close() {
      await streaming.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startBroker(root) {
  const profileDir = root ? undefined : process.env.BENCH_PROFILE_DIR;
  const child = fork(fileURLToPath(import.meta.url), ['serve', 'broker', ...(root ? [root] : [])], {
    stdio: 'inherit',
    execArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  await nextMessage(child, 'port');
  child.send('details');
  return { child, details: await nextMessage(child, 'details') };
}

/** The broker process's CPU time so far (user + system), µs. */
async function brokerCpu(child) {
  child.send('cpu');
  return nextMessage(child, 'cpu');
}

/**
 * Runs `work` and answers its figures with the broker's CPU time per record (µs): what the broker
 * spends on a record, which a loaded machine disturbs less than the rate does; and the share of
 * one core this process (the JavaScript clients, single-threaded) used meanwhile: near 1, the
 * client, not the broker, sets the rate.
 */
async function withCpu(child, records, work) {
  const before = await brokerCpu(child);
  const client = process.cpuUsage();
  const started = performance.now();
  const figures = await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(client);
  return {
    ...figures,
    cpuPerRecord: ((await brokerCpu(child)) - before) / records,
    clientCore: (used.user + used.system) / 1000 / wallMs,
  };
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/**
 * Runs `count` operations, `inFlight` at a time; `operation(index)` answers a promise. Answers the
 * wall time (ms) and each operation's latency (ms), sorted.
 */
async function timedConcurrently(count, inFlight, operation) {
  const latencies = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const started = performance.now();
      await operation(index);
      latencies[index] = performance.now() - started;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
  return { ms: performance.now() - started, latencies: latencies.sort((a, b) => a - b) };
}

function produceFigures(records, { ms, latencies }) {
  return {
    recordsPerSecond: (records / ms) * 1000,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

/**
 * The producers each client is run as: their names, kcat's settings for it, and whether its
 * records are read back.
 */
const DURABLE = [];
/** Kafka's default: the OS flushes, so the broker answers before the fsync. */
const OS_FLUSHED = [{ name: 'flush.messages', value: '9223372036854775807' }];
const IDEMPOTENT_KCAT = ['-X', 'enable.idempotence=true'];
const KINDS = {
  plain: { broker: 'broker', kcat: 'kcat', kcatFlags: [], readBack: true, configs: DURABLE },
  serial: {
    broker: 'broker serial',
    kcat: 'kcat serial',
    kcatFlags: ['-X', 'max.in.flight=1'],
    readBack: false,
    serial: true,
    configs: DURABLE,
  },
  idempotent: {
    broker: 'idempotent',
    kcat: 'kcat idem',
    kcatFlags: IDEMPOTENT_KCAT,
    readBack: false,
    idempotent: true,
    configs: DURABLE,
  },
  osFlushed: {
    broker: 'broker osflush',
    kcat: 'kcat osflush',
    kcatFlags: [],
    readBack: false,
    configs: OS_FLUSHED,
  },
  idempotentOsFlushed: {
    broker: 'idempotent osflush',
    kcat: 'kcat idem osflush',
    kcatFlags: IDEMPOTENT_KCAT,
    readBack: false,
    idempotent: true,
    configs: OS_FLUSHED,
  },
};

/**
 * The broker: one topic per round, produced with acks=-1, then (the plain kind) read back by a
 * consumer group; `kind` (a key of KINDS) makes the producer an idempotent one, or a plain one
 * sending one batch at a time.
 */
async function brokerSystem({ child, details }, kind, label = '') {
  const { idempotent, serial, configs } = KINDS[kind];
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({
    clientId: 'bench',
    brokers: details.brokers,
    ssl: { ca: [details.ca], rejectUnauthorized: true },
    sasl: { mechanism: 'scram-sha-512', username: USER.name, password: USER.password },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  const producer = kafka.producer(
    idempotent
      ? { allowAutoTopicCreation: false, idempotent: true, maxInFlightRequests: 1 }
      : { allowAutoTopicCreation: false },
  );
  await Promise.all([admin.connect(), producer.connect()]);
  const messages = Array.from({ length: BATCH_RECORDS }, () => ({ value }));
  let topics = 0;
  return {
    name: `${label}${KINDS[kind].broker}`,
    async round(records) {
      const topic = `bench-${kind}-${++topics}`;
      await admin.createTopics({
        topics: [{ topic, numPartitions: 1, replicationFactor: 1, configEntries: configs }],
        waitForLeaders: true,
      });
      const sends = Math.ceil(records / BATCH_RECORDS);
      const expected = sends * BATCH_RECORDS;
      const produced = await withCpu(child, expected, async () =>
        produceFigures(
          expected,
          await timedConcurrently(sends, serial ? 1 : SENDS_IN_FLIGHT, () =>
            producer.send({ topic, acks: -1, messages }),
          ),
        ),
      );
      if (!KINDS[kind].readBack) return { ...produced, readPerSecond: undefined };
      const consumer = kafka.consumer({ groupId: `bench-${topic}` });
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      let received = 0;
      let first = 0;
      const read = await withCpu(child, expected, async () => ({
        readMs: await new Promise((resolve, reject) => {
          consumer
            .run({
              eachBatch: async ({ batch }) => {
                if (received === 0) first = performance.now();
                received += batch.messages.length;
                if (received >= expected) resolve(performance.now() - first);
              },
            })
            .catch(reject);
        }),
      }));
      await consumer.disconnect();
      return {
        ...produced,
        readPerSecond: (expected / read.readMs) * 1000,
        readCpuPerRecord: read.cpuPerRecord,
        readClientCore: read.clientCore,
      };
    },
    async close() {
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    },
  };
}

/** librdkafka through `kcat -P`: the same records from stdin, one topic per round. */
async function kcatSystem({ child: brokerChild, details }, kind, label = '') {
  const kcat = ['/usr/bin/kcat', '/usr/local/bin/kcat'].find((candidate) => fs.existsSync(candidate));
  if (!kcat) {
    if (kind === 'plain' && !label)
      console.error('!!! kcat skipped: not installed (apt-get install kcat) !!!');
    return undefined;
  }
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({
    clientId: 'bench-kcat',
    brokers: details.brokers,
    ssl: { ca: [details.ca], rejectUnauthorized: true },
    sasl: { mechanism: 'scram-sha-512', username: USER.name, password: USER.password },
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-kcat-'));
  const caFile = path.join(dir, 'ca.crt');
  fs.writeFileSync(caFile, details.ca);
  // One record a line: the 1 KiB value as hex, cut to RECORD_BYTES characters.
  const line = `${value.toString('hex').slice(0, RECORD_BYTES)}\n`;
  let topics = 0;
  return {
    name: `${label}${KINDS[kind].kcat}`,
    async round(records) {
      const topic = `bench-kcat-${kind}-${++topics}`;
      await admin.createTopics({
        topics: [{ topic, numPartitions: 1, replicationFactor: 1, configEntries: KINDS[kind].configs }],
        waitForLeaders: true,
      });
      const connection = [
        '-b',
        details.brokers[0],
        '-t',
        topic,
        '-X',
        'security.protocol=SASL_SSL',
        '-X',
        'sasl.mechanisms=SCRAM-SHA-512',
        '-X',
        `sasl.username=${USER.name}`,
        '-X',
        `sasl.password=${USER.password}`,
        '-X',
        `ssl.ca.location=${caFile}`,
      ];
      // Answers when the first output came (a consumer's first record), undefined without output.
      const run = (args, stdin) =>
        new Promise((resolve, reject) => {
          const child = spawn(kcat, args, { stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'inherit'] });
          let firstOutput;
          child.stdout.on('data', () => (firstOutput ??= performance.now()));
          child.once('error', reject);
          child.once('exit', (code) =>
            code === 0 ? resolve(firstOutput) : reject(new Error(`kcat exited with ${code}`)),
          );
          stdin?.(child.stdin);
        });
      const started = performance.now();
      const { cpuPerRecord } = await withCpu(brokerChild, records, () =>
        run(['-P', ...connection, '-X', 'acks=all', ...KINDS[kind].kcatFlags], (stdin) => {
          const chunk = line.repeat(BATCH_RECORDS);
          let written = 0;
          const pump = () => {
            while (written < records) {
              written += BATCH_RECORDS;
              if (!stdin.write(chunk)) return stdin.once('drain', pump);
            }
            stdin.end();
          };
          pump();
        }),
      );
      const ms = performance.now() - started;
      // The plain run reads its records back with librdkafka's consumer (no group), timed as
      // kafkajs's is, from its first record to its exit after the last: its start-up (connection,
      // SASL, and a wait of librdkafka's own that is 0 or 500 ms before it asks for the offset)
      // is not counted.
      let readPerSecond;
      if (KINDS[kind].readBack) {
        const first = await run([
          '-C',
          ...connection,
          '-o',
          'beginning',
          '-c',
          String(records),
          '-q',
          '-f',
          '%o\n',
        ]);
        readPerSecond = (records / (performance.now() - first)) * 1000;
      }
      return {
        recordsPerSecond: (records / ms) * 1000,
        p50: undefined,
        p99: undefined,
        cpuPerRecord,
        readPerSecond,
      };
    },
    async close() {
      await admin.disconnect();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** JetStream: a file-backed stream per round, publish with ack, then a pull consumer. */
async function jetStreamSystem() {
  const { connect, AckPolicy, StorageType } = await import('nats');
  let connection;
  try {
    connection = await connect({ servers: NATS_URL, timeout: 2000 });
  } catch (error) {
    console.error(`!!! JetStream skipped: nothing answers at ${NATS_URL} (${error.message}) !!!`);
    return undefined;
  }
  const manager = await connection.jetstreamManager();
  const jetStream = connection.jetstream();
  const run = randomBytes(4).toString('hex');
  let streams = 0;
  return {
    name: 'JetStream',
    async round(records) {
      const stream = `BENCH_${run}_${++streams}`;
      const subject = `bench.${run}.${streams}`;
      await manager.streams.add({ name: stream, subjects: [subject], storage: StorageType.File });
      const produced = await timedConcurrently(records, BATCH_RECORDS * SENDS_IN_FLIGHT, () =>
        jetStream.publish(subject, value),
      );
      await manager.consumers.add(stream, { durable_name: 'reader', ack_policy: AckPolicy.All });
      const consumer = await jetStream.consumers.get(stream, 'reader');
      const messages = await consumer.consume({ max_messages: 1000 });
      let received = 0;
      let first = 0;
      for await (const message of messages) {
        if (received === 0) first = performance.now();
        received += 1;
        if (received % BATCH_RECORDS === 0 || received === records) message.ack();
        if (received === records) break;
      }
      const readMs = performance.now() - first;
      await manager.streams.delete(stream);
      return { ...produceFigures(records, produced), readPerSecond: (records / readMs) * 1000 };
    },
    async close() {
      await connection.drain();
    },
  };
}

/** The broker's log store alone: the same batches appended (group commit and fsync), no network. */
async function rawStoreSystem() {
  const [{ SqliteLogStore }, { encodeBatch }] = await Promise.all([
    import(dist('workloads/local/kafka/index.js')),
    import(dist('workloads/local/kafka/records.js')),
  ]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-store-'));
  const store = new SqliteLogStore(path.join(dir, 'log.sqlite'));
  const now = Date.now();
  const bytes = encodeBatch(
    0,
    Array.from({ length: BATCH_RECORDS }, () => ({ key: null, value, timestamp: now })),
  );
  let topics = 0;
  return {
    name: 'raw store',
    async round(records) {
      const topic = `bench-${++topics}`;
      store.createTopic({
        name: topic,
        partitions: 1,
        replicas: 1,
        retentionMs: -1,
        cleanupPolicy: 'delete',
        createdAt: new Date().toISOString(),
      });
      const batch = () => ({
        bytes: Buffer.from(bytes),
        lastOffsetDelta: BATCH_RECORDS - 1,
        firstTimestamp: now,
        maxTimestamp: now,
        recordCount: BATCH_RECORDS,
        compression: 0,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        transactional: false,
        control: false,
      });
      const sends = Math.ceil(records / BATCH_RECORDS);
      // Nothing else runs in this process meanwhile, so its CPU time is the store's.
      const cpu = process.cpuUsage();
      const produced = await timedConcurrently(sends, SENDS_IN_FLIGHT, () =>
        store.append(topic, 0, [batch()], Date.now()),
      );
      const { user, system } = process.cpuUsage(cpu);
      return {
        ...produceFigures(sends * BATCH_RECORDS, produced),
        cpuPerRecord: (user + system) / (sends * BATCH_RECORDS),
        readPerSecond: undefined,
      };
    },
    async close() {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The broker's check of a produced batch alone (`splitBatches`: its header and the CRC-32C over all
 * its bytes), in this process, of `root`'s build: a 100-record batch checked once per send.
 */
async function batchCheckSystem(root, label = '') {
  const { encodeBatch, splitBatches } = await import(distOf(root, 'workloads/local/kafka/records.js'));
  const now = Date.now();
  const bytes = encodeBatch(
    0,
    Array.from({ length: BATCH_RECORDS }, () => ({ key: null, value, timestamp: now })),
  );
  return {
    name: `${label}batch check`,
    async round(records) {
      const sends = Math.ceil(records / BATCH_RECORDS);
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let send = 0; send < sends; send++) splitBatches(bytes);
      const ms = performance.now() - started;
      const { user, system } = process.cpuUsage(cpu);
      const checked = sends * BATCH_RECORDS;
      return {
        recordsPerSecond: (checked / ms) * 1000,
        p50: undefined,
        p99: undefined,
        cpuPerRecord: (user + system) / checked,
        readPerSecond: undefined,
      };
    },
    async close() {},
  };
}

function median(values) {
  const sorted = values.filter((entry) => entry !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function report(results) {
  const summary = new Map(
    [...results].map(([name, rounds]) => [
      name,
      Object.fromEntries(
        [
          'recordsPerSecond',
          'p50',
          'p99',
          'cpuPerRecord',
          'clientCore',
          'readPerSecond',
          'readCpuPerRecord',
          'readClientCore',
        ].map((field) => [field, median(rounds.map((round) => round[field]))]),
      ),
    ]),
  );
  const cell = (figure, digits, width) =>
    (figure === undefined ? '-' : figure.toFixed(digits)).padStart(width);
  console.log(
    `\n${RECORDS} records of ${RECORD_BYTES} B, batches of ${BATCH_RECORDS}, ${SENDS_IN_FLIGHT} in flight ` +
      `(${BATCH_RECORDS * SENDS_IN_FLIGHT} records); medians of ${ROUNDS} interleaved rounds; ` +
      `latency per send (broker, raw store: ${BATCH_RECORDS} records) or per publish (JetStream: 1); ` +
      `CPU µs (user + system) per record produced and read: the broker's, the raw store's own; ` +
      `client: the cores kafkajs (this process, one thread of JavaScript) kept busy meanwhile`,
  );
  console.log(
    'system                produce rec/s    MB/s   p50 ms   p99 ms  cpu µs/rec  client' +
      '    read rec/s    MB/s  cpu µs/rec  client',
  );
  for (const [name, figures] of summary) {
    const megabytes = (rate) => (rate === undefined ? undefined : (rate * RECORD_BYTES) / 1e6);
    console.log(
      `${name.padEnd(20)}${cell(figures.recordsPerSecond, 0, 15)}${cell(megabytes(figures.recordsPerSecond), 1, 8)}` +
        `${cell(figures.p50, 2, 9)}${cell(figures.p99, 2, 9)}${cell(figures.cpuPerRecord, 1, 12)}` +
        `${cell(figures.clientCore, 2, 8)}${cell(figures.readPerSecond, 0, 14)}` +
        `${cell(megabytes(figures.readPerSecond), 1, 8)}${cell(figures.readCpuPerRecord, 1, 12)}` +
        `${cell(figures.readClientCore, 2, 8)}`,
    );
  }
  if (summary.has('JetStream'))
    console.log('JetStream acknowledges before fsync (default sync_interval); the broker after it');
  const over = (name, field, baseline) => {
    const figure = summary.get(name)?.[field];
    const base = summary.get(baseline)?.[field];
    return figure === undefined || base === undefined ? 'n/a' : (figure / base).toFixed(2);
  };
  console.log('\nagainst JetStream (produce, read back):');
  for (const name of summary.keys()) {
    if (name === 'JetStream') continue;
    console.log(
      `  ${name.padEnd(20)} ${over(name, 'recordsPerSecond', 'JetStream')}  ${over(name, 'readPerSecond', 'JetStream')}`,
    );
  }
  console.log(
    `idempotent/broker produce ${over('idempotent', 'recordsPerSecond', 'broker')} ` +
      `(/broker serial ${over('idempotent', 'recordsPerSecond', 'broker serial')}); ` +
      `kcat idem/kcat produce ${over('kcat idem', 'recordsPerSecond', 'kcat')} ` +
      `(/kcat serial ${over('kcat idem', 'recordsPerSecond', 'kcat serial')}); ` +
      `broker/raw store produce ${over('broker', 'recordsPerSecond', 'raw store')}`,
  );
  console.log(
    `flush.messages=Long.MAX (answered before the fsync): idempotent/broker produce ` +
      `${over('idempotent osflush', 'recordsPerSecond', 'broker osflush')}; ` +
      `kcat idem/kcat produce ${over('kcat idem osflush', 'recordsPerSecond', 'kcat osflush')}; ` +
      `osflush/durable: broker ${over('broker osflush', 'recordsPerSecond', 'broker')}, ` +
      `idempotent ${over('idempotent osflush', 'recordsPerSecond', 'idempotent')}, ` +
      `kcat ${over('kcat osflush', 'recordsPerSecond', 'kcat')}, ` +
      `kcat idem ${over('kcat idem osflush', 'recordsPerSecond', 'kcat idem')}`,
  );
  const before = comparedWithBefore([...summary.keys()]);
  if (before.length > 0)
    console.log('\nthis build / the build beside (produce, broker CPU per record, read back):');
  for (const [now, name] of before) {
    console.log(
      `  ${now.padEnd(20)} ${over(now, 'recordsPerSecond', name)}  ${over(now, 'cpuPerRecord', name)}  ` +
        `${over(now, 'readPerSecond', name)}`,
    );
  }
}

/** The producer kinds run: BENCH_KINDS (keys of KINDS, comma-separated), or all of them. */
const RUN_KINDS = process.env.BENCH_KINDS ? process.env.BENCH_KINDS.split(',') : Object.keys(KINDS);
for (const kind of RUN_KINDS) if (!KINDS[kind]) throw new Error(`BENCH_KINDS: no kind ${kind}`);

/** The clients run against a broker: kafkajs and kcat, each of the kinds run. */
async function clientsOf(broker, label) {
  const systems = [];
  for (const kind of RUN_KINDS) systems.push(await brokerSystem(broker, kind, label));
  for (const kind of RUN_KINDS) {
    const kcat = await kcatSystem(broker, kind, label);
    if (kcat) systems.push(kcat);
  }
  return systems;
}

async function main() {
  const broker = await startBroker();
  const beside = BEFORE_ROOT ? await startBroker(BEFORE_ROOT) : undefined;
  const brokers = beside ? [broker, beside] : [broker];
  const cancel = deadline(RUN_LIMIT_SECONDS, brokers);
  const systems = [];
  try {
    systems.push(...(await clientsOf(broker, '')));
    if (beside) systems.push(...(await clientsOf(beside, BEFORE)));
    const jetStream = await jetStreamSystem();
    if (jetStream) systems.push(jetStream);
    systems.push(await rawStoreSystem(), await batchCheckSystem());
    if (BEFORE_ROOT) systems.push(await batchCheckSystem(BEFORE_ROOT, BEFORE));
    for (const system of systems) await system.round(WARMUP_RECORDS);
    const results = new Map(systems.map((system) => [system.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const system of systems) {
        const figures = await system.round(RECORDS);
        results.get(system.name).push(figures);
        console.error(
          `round ${round} ${system.name}: produce ${figures.recordsPerSecond.toFixed(0)} rec/s` +
            (figures.cpuPerRecord === undefined ? '' : `, cpu ${figures.cpuPerRecord.toFixed(1)} µs/rec`) +
            (figures.readPerSecond === undefined ? '' : `, read ${figures.readPerSecond.toFixed(0)} rec/s`),
        );
      }
    }
    report(results);
  } finally {
    for (const system of systems) await system.close();
    for (const each of brokers) await stopChild(each);
    cancel();
  }
}

if (process.argv[2] === 'serve') serveAsChild(await serveBroker(process.argv[4]));
else await main();
