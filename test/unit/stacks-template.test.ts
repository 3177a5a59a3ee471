import { describe, expect, it } from 'vitest';
import {
  referencesIn,
  resolveReferences,
  type Reference,
  type ReferenceLookup,
} from '../../controllers/stacks/references.js';
import {
  applySteps,
  destroySteps,
  memoryMbOf,
  phaseOf,
  storageGbOf,
  templateProblems,
  timeoutMsOf,
  type StackTemplate,
} from '../../controllers/stacks/template.js';
import { fullTemplate, templateWith, type TemplateEdits } from '../fixtures/stacks.js';

describe('templateProblems', () => {
  it.each<[string, unknown]>([
    ['the full template', fullTemplate()],
    ['an empty template', {}],
    ['a cache without properties', { resources: { c: { type: 'cache' } } }],
    [
      'a database sized by an integer and a cache in GB',
      {
        resources: {
          db: { type: 'database', properties: { engine: 'mysql', storage_size: 20 } },
          c: { type: 'cache', properties: { engine: 'redis', memory: '1Gi' } },
        },
      },
    ],
    [
      'a secret referenced without attribute',
      templateWith({ 'outputs.pw': { value: '${secrets.admin_password}' } }),
    ],
    [
      'depends_on by qualified name and by an earlier section',
      templateWith({ 'bootstrap.migrate.depends_on': ['resources.db', 'admin_password', 'cache'] }),
    ],
    [
      'each PostgreSQL major, and MariaDB under its other name with its version as a number',
      {
        resources: {
          ...Object.fromEntries(
            ['14', '15', '16', '17'].map((major) => [
              `pg${major}`,
              { type: 'database', properties: { engine: 'postgresql', version: major } },
            ]),
          ),
          maria: { type: 'database', properties: { engine: 'mariadb', version: 10.11 } },
        },
      },
    ],
    ['an escaped literal', templateWith({ 'bootstrap.migrate.command': ['sh', '-c', 'echo $${HOME}'] })],
    ['a compound duration', templateWith({ 'bootstrap.migrate.timeout': '2m30s' })],
    ['a service timeout in seconds', templateWith({ 'services.api.properties.timeout': '90' })],
    [
      'a service depending on a service applied first',
      templateWith({
        'services.worker': {
          type: 'helm',
          depends_on: ['services.api'],
          properties: { chart: 'shop/worker' },
        },
      }),
    ],
  ])('accepts %s', (_, template) => {
    expect(templateProblems(template)).toEqual([]);
  });

  it.each<[string, TemplateEdits, string, 400 | 422, string]>([
    // shape
    ['an unknown section', { networks: {} }, 'template.networks', 400, 'unknown section'],
    [
      'an entry name out of pattern',
      { 'resources.Big': { type: 'cache' } },
      'template.resources.Big',
      400,
      'name',
    ],
    [
      'a resource without type',
      { 'resources.db.type': undefined },
      'template.resources.db.type',
      400,
      'required',
    ],
    [
      'an unknown resource property',
      { 'resources.db.properties.size': 1 },
      'template.resources.db.properties.size',
      400,
      'unknown field',
    ],
    [
      'an unknown database engine',
      { 'resources.db.properties.engine': 'oracle' },
      'template.resources.db.properties.engine',
      422,
      'engine must be one of postgresql, mysql (or mariadb), redis, mongodb',
    ],
    [
      'a PostgreSQL version the platform does not offer',
      { 'resources.db.properties.engine': 'postgresql', 'resources.db.properties.version': '9.1' },
      'template.resources.db.properties.version',
      422,
      'postgresql version must be one of 14, 15, 16, 17',
    ],
    [
      'a MariaDB version the platform does not offer, under its other name',
      { 'resources.db.properties.engine': 'mariadb', 'resources.db.properties.version': '11.4' },
      'template.resources.db.properties.version',
      422,
      'mysql version must be one of 10.11',
    ],
    [
      'a cache engine sized by storage',
      { 'resources.cache.properties.engine': 'postgresql' },
      'template.resources.cache.properties.engine',
      422,
      "a cache's engine must be one of redis",
    ],
    [
      'a cache under the least memory',
      { 'resources.cache.properties.memory': '8Mi' },
      'template.resources.cache.properties.memory',
      422,
      'must be at least 16Mi',
    ],
    [
      'a database without engine',
      { 'resources.db.properties.engine': undefined },
      'template.resources.db.properties.engine',
      400,
      'required',
    ],
    [
      'an unreadable storage size',
      { 'resources.db.properties.storage_size': 'ten' },
      'template.resources.db.properties.storage_size',
      400,
      '10Gi',
    ],
    [
      'a zero storage size',
      { 'resources.db.properties.storage_size': 0 },
      'template.resources.db.properties.storage_size',
      400,
      'at least 1',
    ],
    [
      'an unreadable cache memory',
      { 'resources.cache.properties.memory': '1Tb' },
      'template.resources.cache.properties.memory',
      400,
      '256Mi',
    ],
    [
      'a cache engine other than redis',
      { 'resources.cache.properties.engine': 'memcached' },
      'template.resources.cache.properties.engine',
      422,
      'redis',
    ],
    [
      'a secret not generated',
      { 'secrets.admin_password.type': 'static' },
      'template.secrets.admin_password.type',
      400,
      'generated',
    ],
    [
      'an unknown generator',
      { 'secrets.admin_password.generator_type': 'pin' },
      'template.secrets.admin_password.generator_type',
      400,
      'password, token',
    ],
    [
      'a short secret',
      { 'secrets.admin_password.length': 4 },
      'template.secrets.admin_password.length',
      400,
      'at least 8',
    ],
    [
      'a long secret',
      { 'secrets.admin_password.length': 300 },
      'template.secrets.admin_password.length',
      400,
      'at most 256',
    ],
    [
      'a fractional length',
      { 'secrets.admin_password.length': 12.5 },
      'template.secrets.admin_password.length',
      400,
      'integer',
    ],
    [
      'a job without image',
      { 'bootstrap.migrate.image': undefined },
      'template.bootstrap.migrate.image',
      400,
      'required',
    ],
    [
      'a job with an empty image',
      { 'bootstrap.migrate.image': '' },
      'template.bootstrap.migrate.image',
      400,
      'empty',
    ],
    [
      'a job with an empty command',
      { 'bootstrap.migrate.command': [] },
      'template.bootstrap.migrate.command',
      400,
      'empty',
    ],
    [
      'a command word that is not a string',
      { 'bootstrap.migrate.command': ['migrate', 1] },
      'template.bootstrap.migrate.command[1]',
      400,
      'string',
    ],
    [
      'an environment variable name out of pattern',
      { 'bootstrap.migrate.env': { '1BAD': 'x' } },
      'template.bootstrap.migrate.env["1BAD"]',
      400,
      'name',
    ],
    [
      'an unreadable timeout',
      { 'bootstrap.migrate.timeout': 'soon' },
      'template.bootstrap.migrate.timeout',
      400,
      'duration',
    ],
    [
      'a timeout past an hour',
      { 'bootstrap.migrate.timeout': '2h' },
      'template.bootstrap.migrate.timeout',
      400,
      '1h',
    ],
    [
      'a service that is not helm',
      { 'services.api.type': 'kustomize' },
      'template.services.api.type',
      400,
      'helm',
    ],
    [
      'a service without chart',
      { 'services.api.properties.chart': undefined },
      'template.services.api.properties.chart',
      400,
      'required',
    ],
    [
      'values that are not an object',
      { 'services.api.properties.values': 'x' },
      'template.services.api.properties.values',
      400,
      'object',
    ],
    ['an output without value', { 'outputs.db_url': {} }, 'template.outputs.db_url.value', 400, 'required'],
    // meaning
    [
      'an unknown resource type',
      { 'resources.cache.type': 'queue' },
      'template.resources.cache.type',
      422,
      'database, cache',
    ],
    [
      'a reference to an undefined entry',
      { 'services.api.properties.values.database.host': '${resources.nope.endpoint}' },
      'template.services.api.properties.values.database.host',
      422,
      'references resources.nope, which the template does not define',
    ],
    [
      'a reference to an unknown attribute',
      { 'outputs.db_url.value': '${resources.db.password}' },
      'template.outputs.db_url.value',
      422,
      'no attribute password',
    ],
    [
      'a malformed reference',
      { 'outputs.db_url.value': 'postgres://${resources.db}' },
      'template.outputs.db_url.value',
      422,
      'malformed reference ${resources.db}',
    ],
    [
      'a shell variable written as a reference',
      { 'bootstrap.migrate.command': ['sh', '-c', 'echo ${HOME}'] },
      'template.bootstrap.migrate.command[2]',
      422,
      'malformed',
    ],
    [
      'an unterminated reference',
      { 'outputs.db_url.value': '${resources.db.id' },
      'template.outputs.db_url.value',
      422,
      'malformed',
    ],
    [
      'a reference to an output',
      { 'outputs.copy': { value: '${outputs.db_url.value}' } },
      'template.outputs.copy.value',
      422,
      'outputs cannot be referenced',
    ],
    [
      'a reference to a later phase',
      { 'bootstrap.migrate.env': { API: '${services.api.endpoint}' } },
      'template.bootstrap.migrate.env.API',
      422,
      'later phase (services)',
    ],
    [
      'a dependency on an undefined entry',
      { 'services.api.depends_on': ['migrate', 'seed'] },
      'template.services.api.depends_on[1]',
      422,
      'depends on seed, which the template does not define',
    ],
    [
      'a dependency on a later phase',
      { 'resources.db.depends_on': ['api'] },
      'template.resources.db.depends_on[0]',
      422,
      'depends on services.api, which is applied in a later phase (services)',
    ],
    [
      'a dependency cycle between services',
      {
        'services.worker': { type: 'helm', depends_on: ['api'], properties: { chart: 'shop/worker' } },
        'services.api.depends_on': ['migrate', 'worker'],
      },
      'template.services.api',
      422,
      'dependency cycle services.api → services.worker → services.api',
    ],
    [
      'a reference cycle between jobs',
      {
        'bootstrap.seed': {
          image: 'shop/seed',
          command: ['seed'],
          env: { AFTER: '${bootstrap.migrate.status}' },
        },
        'bootstrap.migrate.env': { AFTER: '${bootstrap.seed.exit_code}' },
      },
      'template.bootstrap.migrate',
      422,
      'dependency cycle bootstrap.migrate → bootstrap.seed → bootstrap.migrate',
    ],
    [
      'an entry depending on itself',
      { 'resources.db.depends_on': ['db'] },
      'template.resources.db',
      422,
      'dependency cycle resources.db → resources.db',
    ],
  ])('refuses %s', (_, edits, path, status, message) => {
    expect(templateProblems(templateWith(edits))).toEqual([
      { path, status, message: expect.stringContaining(message) },
    ]);
  });

  it("holds sizes against the platform's limits when given them", () => {
    const big = templateWith({
      'resources.db.properties.storage_size': '200Gi',
      'resources.cache.properties.memory': '1Gi',
    });
    expect(templateProblems(big)).toEqual([]);
    expect(templateProblems(big, { maxStorageGb: 100, maxMemoryMb: 512 })).toEqual([
      {
        path: 'template.resources.cache.properties.memory',
        status: 422,
        message: 'must be at most 512Mi, the most a database may have here',
      },
      {
        path: 'template.resources.db.properties.storage_size',
        status: 422,
        message: 'must be at most 100Gi, the most a database may have here',
      },
    ]);
  });

  it('refuses a template that is not an object', () => {
    expect(templateProblems('shop')).toEqual([
      { path: 'template', status: 400, message: 'must be of type object' },
    ]);
  });

  it('lists shape problems before problems of meaning', () => {
    const problems = templateProblems(
      templateWith({ 'resources.cache.type': 'queue', 'secrets.admin_password.length': 4 }),
    );
    expect(problems.map(({ path, status }) => [path, status])).toEqual([
      ['template.secrets.admin_password.length', 400],
      ['template.resources.cache.type', 422],
    ]);
  });
});

describe('sizes and durations', () => {
  it.each<[unknown, number | undefined]>([
    [undefined, 10],
    ['10Gi', 10],
    ['20GB', 20],
    ['30G', 30],
    ['15', 15],
    [40, 40],
    ['0', undefined],
    ['1Ti', undefined],
  ])('storage_size %s is %s GB', (storage_size, gb) => {
    expect(storageGbOf({ type: 'database', properties: { engine: 'postgresql', storage_size } })).toBe(gb);
  });

  it.each<[unknown, number | undefined]>([
    [undefined, 256],
    ['256Mi', 256],
    ['512MB', 512],
    ['1Gi', 1024],
    ['2GB', 2048],
    ['128', 128],
    ['1Tb', undefined],
  ])('memory %s is %s MiB', (memory, mb) => {
    expect(memoryMbOf({ type: 'cache', properties: { memory } })).toBe(mb);
  });

  it.each<[string | undefined, number]>([
    [undefined, 7000],
    ['90', 90_000],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['2m5s', 125_000],
    ['soon', 7000],
  ])('timeout %s is %s ms', (duration, ms) => {
    expect(timeoutMsOf(duration, 7000)).toBe(ms);
  });
});

describe('applySteps and destroySteps', () => {
  const keys = (template: StackTemplate): string[] => applySteps(template).map(({ key }) => key);

  it('applies phase by phase, each entry after what it needs', () => {
    expect(applySteps(fullTemplate())).toEqual([
      { phase: 'infrastructure', section: 'resources', name: 'cache', key: 'resources.cache', dependsOn: [] },
      { phase: 'infrastructure', section: 'resources', name: 'db', key: 'resources.db', dependsOn: [] },
      {
        phase: 'secrets',
        section: 'secrets',
        name: 'admin_password',
        key: 'secrets.admin_password',
        dependsOn: [],
      },
      {
        phase: 'bootstrap',
        section: 'bootstrap',
        name: 'migrate',
        key: 'bootstrap.migrate',
        dependsOn: ['resources.db', 'secrets.admin_password'],
      },
      {
        phase: 'services',
        section: 'services',
        name: 'api',
        key: 'services.api',
        dependsOn: ['bootstrap.migrate', 'resources.db'],
      },
    ]);
  });

  it.each<[string, StackTemplate, string[]]>([
    [
      'ties by name',
      { resources: { b: { type: 'cache' }, c: { type: 'cache' }, a: { type: 'cache' } } },
      ['resources.a', 'resources.b', 'resources.c'],
    ],
    [
      'a depends_on inside a phase',
      { resources: { a: { type: 'cache', depends_on: ['c'] }, b: { type: 'cache' }, c: { type: 'cache' } } },
      ['resources.b', 'resources.c', 'resources.a'],
    ],
    [
      'a reference inside a phase',
      {
        bootstrap: {
          a_seed: { image: 'seed', command: ['seed'], env: { AFTER: '${bootstrap.migrate.exit_code}' } },
          migrate: { image: 'migrate', command: ['up'] },
        },
      },
      ['bootstrap.migrate', 'bootstrap.a_seed'],
    ],
    [
      'phases before names',
      {
        services: { a: { type: 'helm', properties: { chart: 'a' } } },
        secrets: { z: { type: 'generated', generator_type: 'token' } },
        resources: { zz: { type: 'cache' } },
      },
      ['resources.zz', 'secrets.z', 'services.a'],
    ],
  ])('orders %s', (_, template, expected) => {
    expect(keys(template)).toEqual(expected);
  });

  it('destroys in exactly the reverse order', () => {
    const template = fullTemplate();
    expect(destroySteps(template)).toEqual([...applySteps(template)].reverse());
    expect(destroySteps(template).map(({ key }) => key)).toEqual([
      'services.api',
      'bootstrap.migrate',
      'secrets.admin_password',
      'resources.db',
      'resources.cache',
    ]);
  });

  it.each([
    ['resources', 'infrastructure'],
    ['secrets', 'secrets'],
    ['bootstrap', 'bootstrap'],
    ['services', 'services'],
  ] as const)('runs %s in the %s phase', (section, phase) => {
    expect(phaseOf(section)).toBe(phase);
  });
});

describe('references', () => {
  const VALUES: Record<string, { value: string; sensitive: boolean }> = {
    '${resources.db.host}': { value: 'db.internal', sensitive: false },
    '${resources.db.port}': { value: '5432', sensitive: false },
    '${resources.db.connection_string}': {
      value: 'postgresql://u:pw@db.internal:5432/shop',
      sensitive: true,
    },
    '${secrets.admin_password}': { value: 's3cret', sensitive: true },
  };
  const lookup: ReferenceLookup = (reference: Reference) => VALUES[reference.raw];

  it('finds every reference in order of appearance, at any depth', () => {
    expect(referencesIn(fullTemplate().bootstrap)).toEqual([
      {
        raw: '${resources.db.connection_string}',
        section: 'resources',
        name: 'db',
        attribute: 'connection_string',
      },
      { raw: '${secrets.admin_password}', section: 'secrets', name: 'admin_password', attribute: 'value' },
    ]);
    expect(referencesIn(['${oops}', 'a $${literal}', 3, null])).toEqual([]);
  });

  it.each<[string, unknown, unknown, boolean]>([
    ['a whole string', '${resources.db.host}', 'db.internal', false],
    [
      'embedded references',
      'tcp://${resources.db.host}:${resources.db.port}/',
      'tcp://db.internal:5432/',
      false,
    ],
    [
      'nested objects and arrays',
      { env: [{ URL: '${resources.db.connection_string}' }], replicas: 2, on: true, none: null },
      { env: [{ URL: 'postgresql://u:pw@db.internal:5432/shop' }], replicas: 2, on: true, none: null },
      true,
    ],
    ['a secret', 'PASSWORD=${secrets.admin_password}', 'PASSWORD=s3cret', true],
    ['an escaped literal', ['sh', '-c', 'echo $${HOME}'], ['sh', '-c', 'echo ${HOME}'], false],
  ])('resolves %s', (_, value, resolved, sensitive) => {
    expect(resolveReferences(value, lookup)).toEqual({ value: resolved, sensitive, unresolved: [] });
  });

  it('leaves unresolved references as written and lists each once', () => {
    const value = { a: '${services.api.endpoint}', b: ['${services.api.endpoint}', '${resources.db.host}'] };
    expect(resolveReferences(value, lookup)).toEqual({
      value: { a: '${services.api.endpoint}', b: ['${services.api.endpoint}', 'db.internal'] },
      sensitive: false,
      unresolved: [
        { raw: '${services.api.endpoint}', section: 'services', name: 'api', attribute: 'endpoint' },
      ],
    });
  });

  it('does not change its input', () => {
    const template = fullTemplate();
    resolveReferences(template, lookup);
    expect(template).toEqual(fullTemplate());
  });
});
