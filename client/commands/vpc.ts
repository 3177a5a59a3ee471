/** `vpc`: VPCs and what is in them (subnets, security groups, gateways). */
import { Command, Option } from 'commander';
import type { paths } from '../../sdk/index.js';
import { UsageError } from '../failures.js';
import {
  answerOf,
  Invocation,
  timeoutOf,
  withExamples,
  withWait,
  type ClientEnvironment,
  type WaitFlags,
} from '../invocation.js';
import { renderFields, renderTable } from '../output.js';
import { untilGone, waitFor } from '../waiting.js';

type VpcDetail = paths['/api/v1/vpcs/{id}']['get']['responses'][200]['content']['application/json'];

const vpcPath = (id: string) => ({ params: { path: { id } } });

function subnetCommands(environment: ClientEnvironment): Command {
  const subnets = new Command('subnets').description("a VPC's subnets");
  withExamples(
    subnets
      .command('list')
      .description("list a VPC's subnets")
      .argument('<vpc>', 'the VPC id')
      .action(async (vpc: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = answerOf(await run.api().GET('/api/v1/vpcs/{id}/subnets', vpcPath(vpc)));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'cidr', value: (row) => row.cidr_block },
            { header: 'zone', value: (row) => row.availability_zone },
            { header: 'free ips', value: (row) => row.available_ip_count },
          ]),
        );
      }),
    ['cloudplane vpc subnets list 6f1c…'],
  );
  withExamples(
    subnets
      .command('create')
      .description('create a subnet')
      .argument('<vpc>', 'the VPC id')
      .argument('<name>')
      .requiredOption('--cidr <block>', 'a block inside the VPC, e.g. 10.0.1.0/24')
      .requiredOption('--zone <zone>', 'the availability zone, e.g. eu-west-1a')
      .option('--public', 'give instances launched in it a public address')
      .action(
        async (vpc: string, name: string, flags: { cidr: string; zone: string; public?: boolean }, cmd) => {
          const run = Invocation.of(cmd as Command, environment);
          const subnet = answerOf(
            await run.api().POST('/api/v1/vpcs/{id}/subnets', {
              ...vpcPath(vpc),
              body: {
                name,
                cidr_block: flags.cidr,
                availability_zone: flags.zone,
                ...(flags.public && { map_public_ip_on_launch: true }),
              },
            }),
          );
          run.say(subnet, `Created subnet ${subnet.id} (${subnet.cidr_block})`);
        },
      ),
    ['cloudplane vpc subnets create 6f1c… web --cidr 10.0.1.0/24 --zone eu-west-1a'],
  );
  withExamples(
    subnets
      .command('delete')
      .description('delete a subnet')
      .argument('<vpc>', 'the VPC id')
      .argument('<subnet>', 'the subnet id')
      .action(async (vpc: string, subnet: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run.api().DELETE('/api/v1/vpcs/{id}/subnets/{subnet_id}', {
          params: { path: { id: vpc, subnet_id: subnet } },
        });
        run.say({ deleted: subnet }, `Deleted subnet ${subnet}`);
      }),
    ['cloudplane vpc subnets delete 6f1c… subnet-0a1b…'],
  );
  return withExamples(subnets, ['cloudplane vpc subnets list 6f1c…']);
}

/** `tcp:443:0.0.0.0/0` → `{protocol, port_range, source}`. */
export function parseRule(text: string): { protocol: string; port_range?: string; source: string } {
  const match = /^([a-z0-9-]+):([0-9-]*):(.+)$/i.exec(text);
  if (!match) throw new UsageError(`${JSON.stringify(text)} is not a rule such as tcp:443:0.0.0.0/0`);
  const [, protocol, ports, source] = match;
  return { protocol: protocol!, ...(ports ? { port_range: ports } : {}), source: source! };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function securityGroupCommands(environment: ClientEnvironment): Command {
  const groups = new Command('security-groups').description("a VPC's security groups");
  withExamples(
    groups
      .command('list')
      .description("list a VPC's security groups")
      .argument('<vpc>', 'the VPC id')
      .action(async (vpc: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = answerOf(
          await run.api().GET('/api/v1/vpcs/{id}/security-groups', vpcPath(vpc)),
        ) as Record<string, unknown>[];
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'inbound', value: (row) => (row.inbound_rules as unknown[] | undefined)?.length ?? 0 },
            {
              header: 'outbound',
              value: (row) => (row.outbound_rules as unknown[] | undefined)?.length ?? 0,
            },
          ]),
        );
      }),
    ['cloudplane vpc security-groups list 6f1c…'],
  );
  withExamples(
    groups
      .command('create')
      .description('create a security group')
      .argument('<vpc>', 'the VPC id')
      .argument('<name>')
      .option('--inbound <protocol:ports:source>', 'an inbound rule (repeatable)', collect)
      .option('--outbound <protocol:ports:source>', 'an outbound rule (repeatable)', collect)
      .action(async (vpc: string, name: string, flags: { inbound?: string[]; outbound?: string[] }, cmd) => {
        const run = Invocation.of(cmd as Command, environment);
        const group = answerOf(
          await run.api().POST('/api/v1/vpcs/{id}/security-groups', {
            ...vpcPath(vpc),
            body: {
              name,
              ...(flags.inbound && { inbound_rules: flags.inbound.map(parseRule) }),
              ...(flags.outbound && { outbound_rules: flags.outbound.map(parseRule) }),
            },
          }),
        );
        run.say(group, `Created security group ${group.id}`);
      }),
    ['cloudplane vpc security-groups create 6f1c… web --inbound tcp:443:0.0.0.0/0'],
  );
  withExamples(
    groups
      .command('delete')
      .description('delete a security group')
      .argument('<vpc>', 'the VPC id')
      .argument('<group>', 'the security group id')
      .action(async (vpc: string, group: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run.api().DELETE('/api/v1/vpcs/{id}/security-groups/{sg_id}', {
          params: { path: { id: vpc, sg_id: group } },
        });
        run.say({ deleted: group }, `Deleted security group ${group}`);
      }),
    ['cloudplane vpc security-groups delete 6f1c… sg-0a1b…'],
  );
  return withExamples(groups, ['cloudplane vpc security-groups list 6f1c…']);
}

function gatewayCommands(environment: ClientEnvironment): Command {
  const gateways = new Command('gateways').description("a VPC's internet and NAT gateways");
  withExamples(
    gateways
      .command('list')
      .description("list a VPC's gateways")
      .argument('<vpc>', 'the VPC id')
      .action(async (vpc: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const internet = answerOf(
          await api.GET('/api/v1/vpcs/{id}/internet-gateways', vpcPath(vpc)),
        ) as Record<string, unknown>[];
        const nat = answerOf(await api.GET('/api/v1/vpcs/{id}/nat-gateways', vpcPath(vpc))) as Record<
          string,
          unknown
        >[];
        const rows: Record<string, unknown>[] = [
          ...internet.map((gateway) => ({ type: 'internet', ...gateway })),
          ...nat.map((gateway) => ({ type: 'nat', ...gateway })),
        ];
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'type', value: (row) => row.type },
            { header: 'status', value: (row) => row.status },
            { header: 'subnet', value: (row) => row.subnet_id },
          ]),
        );
      }),
    ['cloudplane vpc gateways list 6f1c…'],
  );
  withExamples(
    gateways
      .command('create')
      .description('attach an internet gateway or create a NAT gateway')
      .argument('<vpc>', 'the VPC id')
      .addOption(
        new Option('--type <type>', 'the kind of gateway').choices(['internet', 'nat']).makeOptionMandatory(),
      )
      .option('--name <name>', "the internet gateway's name")
      .option('--subnet <id>', 'the subnet a NAT gateway sits in')
      .action(
        async (vpc: string, flags: { type: 'internet' | 'nat'; name?: string; subnet?: string }, cmd) => {
          const run = Invocation.of(cmd as Command, environment);
          const api = run.api();
          if (flags.type === 'internet') {
            const body = flags.name === undefined ? {} : { name: flags.name };
            const gateway = answerOf(
              await api.POST('/api/v1/vpcs/{id}/internet-gateways', { ...vpcPath(vpc), body }),
            );
            run.say(gateway, `Attached internet gateway ${gateway.id}`);
            return;
          }
          if (flags.subnet === undefined) throw new UsageError('a NAT gateway needs --subnet');
          const gateway = answerOf(
            await api.POST('/api/v1/vpcs/{id}/nat-gateways', {
              ...vpcPath(vpc),
              body: { subnet_id: flags.subnet },
            }),
          );
          run.say(gateway, `Created NAT gateway ${gateway.id} (${gateway.status})`);
        },
      ),
    [
      'cloudplane vpc gateways create 6f1c… --type internet',
      'cloudplane vpc gateways create 6f1c… --type nat --subnet subnet-0a1b…',
    ],
  );
  withExamples(
    gateways
      .command('delete')
      .description('delete a gateway (igw-… or nat-…)')
      .argument('<vpc>', 'the VPC id')
      .argument('<gateway>', 'the gateway id')
      .action(async (vpc: string, gateway: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        if (gateway.startsWith('igw-')) {
          await api.DELETE('/api/v1/vpcs/{id}/internet-gateways/{igw_id}', {
            params: { path: { id: vpc, igw_id: gateway } },
          });
        } else if (gateway.startsWith('nat-')) {
          await api.DELETE('/api/v1/vpcs/{id}/nat-gateways/{nat_id}', {
            params: { path: { id: vpc, nat_id: gateway } },
          });
        } else {
          throw new UsageError(`${JSON.stringify(gateway)} is neither an igw- nor a nat- id`);
        }
        run.say({ deleted: gateway }, `Deleted gateway ${gateway}`);
      }),
    ['cloudplane vpc gateways delete 6f1c… igw-0a1b…'],
  );
  return withExamples(gateways, ['cloudplane vpc gateways list 6f1c…']);
}

export function vpcCommands(environment: ClientEnvironment): Command {
  const vpc = new Command('vpc').description('virtual private clouds');

  withExamples(
    withWait(
      vpc
        .command('create')
        .description('create a VPC')
        .argument('<name>')
        .requiredOption('--cidr <block>', 'its address block, e.g. 10.0.0.0/16')
        .requiredOption('--region <region>', 'e.g. eu-west-1'),
      'it is available',
    ).action(async (name: string, flags: WaitFlags & { cidr: string; region: string }, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      const created = answerOf(
        await api.POST('/api/v1/vpcs', { body: { name, cidr_block: flags.cidr, region: flags.region } }),
      );
      if (!flags.wait) {
        run.say(created, `Created VPC ${created.id} (${created.status})`);
        return;
      }
      const available = await waitFor<VpcDetail>({
        terminal: run.terminal,
        what: `VPC ${name}`,
        timeoutMs: timeoutOf(flags),
        async poll() {
          const current = answerOf(await api.GET('/api/v1/vpcs/{id}', vpcPath(created.id!)));
          if (current.status === 'available') return { state: 'done', value: current, status: 'available' };
          if (current.status === 'deleting' || current.status === 'deleted') {
            return { state: 'failed', message: current.status! };
          }
          return { state: 'pending', status: current.status ?? 'provisioning' };
        },
      });
      run.say(available, `Created VPC ${available.id} (${available.cidr_block}, available)`);
    }),
    ['cloudplane vpc create prod --cidr 10.0.0.0/16 --region eu-west-1 --wait'],
  );

  withExamples(
    vpc
      .command('list')
      .description("list the organization's VPCs")
      .option('--region <region>', 'only this region')
      .action(async (flags: { region?: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const query = flags.region === undefined ? {} : { region: flags.region };
        const rows = answerOf(await run.api().GET('/api/v1/vpcs', { params: { query } }));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'cidr', value: (row) => row.cidr_block },
            { header: 'region', value: (row) => row.region },
            { header: 'status', value: (row) => row.status },
            { header: 'subnets', value: (row) => row.subnet_count },
          ]),
        );
      }),
    ['cloudplane vpc list', 'cloudplane vpc list --region eu-west-1 -o json'],
  );

  withExamples(
    vpc
      .command('get')
      .description('show a VPC')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const found = answerOf(await run.api().GET('/api/v1/vpcs/{id}', vpcPath(id)));
        run.print(found, () => renderFields(Object.entries(found)));
      }),
    ['cloudplane vpc get 6f1c…'],
  );

  withExamples(
    withWait(
      vpc.command('delete').description('delete a VPC and everything in it').argument('<id>'),
      'it is gone',
    ).action(async (id: string, flags: WaitFlags, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      await api.DELETE('/api/v1/vpcs/{id}', vpcPath(id));
      if (flags.wait) {
        await waitFor({
          terminal: run.terminal,
          what: `VPC ${id}`,
          timeoutMs: timeoutOf(flags),
          poll: untilGone(async () => {
            const current = answerOf(await api.GET('/api/v1/vpcs/{id}', vpcPath(id)));
            return current.status;
          }),
        });
      }
      run.say({ deleted: id }, `Deleted VPC ${id}`);
    }),
    ['cloudplane vpc delete 6f1c… --wait'],
  );

  vpc.addCommand(subnetCommands(environment));
  vpc.addCommand(securityGroupCommands(environment));
  vpc.addCommand(gatewayCommands(environment));
  return withExamples(vpc, [
    'cloudplane vpc create prod --cidr 10.0.0.0/16 --region eu-west-1 --wait',
    'cloudplane vpc list',
  ]);
}
