/** VPCs: the list with a create form, and a VPC's parts (subnets, security groups, routes, gateways). */
import { useState } from 'preact/hooks';
import { Link } from '../components/link.tsx';
import { DetailPage, Facts } from '../components/detail.tsx';
import { ActionForm, TextInput } from '../components/form.tsx';
import { ListPage, ResourceTable } from '../components/table.tsx';
import { ErrorNotice, Field, formatDate, StatusBadge, useAction, useLoad } from '../components/ui.tsx';
import { navigate } from '../router.ts';
import { api } from '../session.ts';

/** The families whose events change what the VPC pages show. */
const VPC_EVENTS = ['vpc', 'subnet', 'security_group', 'route_table', 'internet_gateway', 'nat_gateway'];
/** The platform's default regions, offered as suggestions; an operator's own (`CLOUDPLANE_REGIONS`) are typed. */
const DEFAULT_REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1'];

function CreateVpc({ onCreated }: { onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [cidr, setCidr] = useState('10.0.0.0/16');
  const [region, setRegion] = useState(DEFAULT_REGIONS[0]!);
  const create = useAction(async () => {
    const { data } = await api.POST('/api/v1/vpcs', { body: { name, cidr_block: cidr, region } });
    onCreated(data!.id!);
  });
  return (
    <ActionForm id="create-vpc" heading="Create a VPC" action={create} submit="Create VPC">
      <TextInput id="vpc-name" label="Name" value={name} onValue={setName} />
      <TextInput
        id="vpc-cidr"
        label="CIDR block"
        hint="A private IPv4 range from /16 to /28, e.g. 10.0.0.0/16."
        value={cidr}
        onValue={setCidr}
      />
      <Field id="vpc-region" label="Region">
        {() => (
          <>
            <input
              id="vpc-region"
              list="vpc-regions"
              required
              value={region}
              onInput={(event) => setRegion(event.currentTarget.value)}
            />
            <datalist id="vpc-regions">
              {DEFAULT_REGIONS.map((choice) => (
                <option key={choice} value={choice} />
              ))}
            </datalist>
          </>
        )}
      </Field>
    </ActionForm>
  );
}

export function Vpcs() {
  const vpcs = useLoad(async () => (await api.GET('/api/v1/vpcs')).data ?? [], [], VPC_EVENTS);
  return (
    <ListPage
      title="VPCs"
      create={<CreateVpc onCreated={(id) => navigate(`/vpcs/${id}`)} />}
      error={vpcs.error}
      label="Your organization's virtual private clouds"
      caption
      columns={['Name', 'CIDR block', 'Region', 'Status', 'Subnets', 'Created']}
      rows={vpcs.data}
      empty="No VPC yet."
      row={(vpc) => (
        <tr key={vpc.id}>
          <td>
            <Link href={`/vpcs/${vpc.id}`}>{vpc.name}</Link>
          </td>
          <td>
            <code>{vpc.cidr_block}</code>
          </td>
          <td>{vpc.region}</td>
          <td>
            <StatusBadge status={vpc.status} />
          </td>
          <td>{vpc.subnet_count}</td>
          <td>{formatDate(vpc.created_at)}</td>
        </tr>
      )}
    />
  );
}

function CreateSubnet({
  vpcId,
  region,
  onCreated,
}: {
  vpcId: string;
  region: string;
  onCreated: () => void;
}) {
  const [name, setName] = useState('');
  const [cidr, setCidr] = useState('');
  const [zone, setZone] = useState(`${region}a`);
  const create = useAction(async () => {
    await api.POST('/api/v1/vpcs/{id}/subnets', {
      params: { path: { id: vpcId } },
      body: { name, cidr_block: cidr, availability_zone: zone },
    });
    setName('');
    setCidr('');
    onCreated();
  });
  return (
    <ActionForm id="create-subnet" heading="Add a subnet" level={3} action={create} submit="Add subnet">
      <TextInput id="subnet-name" label="Subnet name" value={name} onValue={setName} />
      <TextInput
        id="subnet-cidr"
        label="Subnet CIDR block"
        hint="Inside the VPC's range, e.g. 10.0.1.0/24."
        value={cidr}
        onValue={setCidr}
      />
      <TextInput id="subnet-zone" label="Availability zone" value={zone} onValue={setZone} />
    </ActionForm>
  );
}

export function VpcDetail({ id }: { id: string }) {
  const path = { params: { path: { id } } };
  const vpc = useLoad(async () => (await api.GET('/api/v1/vpcs/{id}', path)).data, [id], VPC_EVENTS);
  const parts = useLoad(
    async () => {
      const [subnets, groups, tables, internet, nat] = await Promise.all([
        api.GET('/api/v1/vpcs/{id}/subnets', path),
        api.GET('/api/v1/vpcs/{id}/security-groups', path),
        api.GET('/api/v1/vpcs/{id}/route-tables', path),
        api.GET('/api/v1/vpcs/{id}/internet-gateways', path),
        api.GET('/api/v1/vpcs/{id}/nat-gateways', path),
      ]);
      return {
        subnets: subnets.data ?? [],
        groups: groups.data ?? [],
        tables: tables.data ?? [],
        internet: internet.data ?? [],
        nat: nat.data ?? [],
      };
    },
    [id],
    VPC_EVENTS,
  );
  const remove = useAction(async () => {
    await api.DELETE('/api/v1/vpcs/{id}', path);
    navigate('/vpcs');
  });
  const detail = vpc.data;
  return (
    <DetailPage
      title={detail?.name ? `VPC ${detail.name}` : 'VPC'}
      backHref="/vpcs"
      backLabel="← All VPCs"
      error={vpc.error ?? remove.error}
      remove={{
        ...remove,
        label: 'Delete VPC',
        question: `Delete the VPC ${detail?.name}?`,
        loaded: Boolean(detail),
      }}
    >
      {detail && (
        <Facts
          facts={[
            ['Status', <StatusBadge status={detail.status} />],
            ['CIDR block', <code>{detail.cidr_block}</code>],
            ['Region', detail.region],
            ['ID', <code>{detail.id}</code>],
            ['Created', formatDate(detail.created_at)],
          ]}
        />
      )}
      <ErrorNotice error={parts.error} />
      <h2>Subnets</h2>
      <ResourceTable
        label="Subnets"
        columns={['Name', 'CIDR block', 'Zone', 'Free addresses']}
        rows={parts.data?.subnets}
        empty="No subnet yet."
        row={(subnet) => (
          <tr key={subnet.id}>
            <td>{subnet.name}</td>
            <td>
              <code>{subnet.cidr_block}</code>
            </td>
            <td>{subnet.availability_zone}</td>
            <td>{subnet.available_ip_count}</td>
          </tr>
        )}
      />
      {detail && <CreateSubnet vpcId={id} region={detail.region ?? ''} onCreated={parts.reload} />}
      <h2>Security groups</h2>
      <ul class="plain-list">
        {parts.data?.groups.map((group) => (
          <li key={group.id}>
            <strong>{group.name}</strong>{' '}
            {group.description && <span class="muted">— {group.description}</span>}{' '}
            <span class="muted">
              ({group.inbound_rules?.length ?? 0} inbound, {group.outbound_rules?.length ?? 0} outbound rules)
            </span>
          </li>
        ))}
        {parts.data?.groups.length === 0 && <li class="muted">None.</li>}
      </ul>
      <h2>Route tables</h2>
      <ul class="plain-list">
        {parts.data?.tables.map((table) => (
          <li key={table.id}>
            <strong>{table.name ?? table.id}</strong>{' '}
            <span class="muted">
              ({table.routes?.length ?? 0} routes, {table.subnet_associations ?? 0} subnets)
            </span>
          </li>
        ))}
        {parts.data?.tables.length === 0 && <li class="muted">None.</li>}
      </ul>
      <h2>Gateways</h2>
      <ul class="plain-list">
        {parts.data?.internet.map((gateway) => (
          <li key={gateway.id}>
            Internet gateway <code>{gateway.id}</code> <StatusBadge status={gateway.status} />
          </li>
        ))}
        {parts.data?.nat.map((gateway) => (
          <li key={gateway.id}>
            NAT gateway <code>{gateway.id}</code> <StatusBadge status={gateway.status} />{' '}
            {gateway.public_ip && <span class="muted">{gateway.public_ip}</span>}
          </li>
        ))}
        {parts.data && parts.data.internet.length + parts.data.nat.length === 0 && (
          <li class="muted">None.</li>
        )}
      </ul>
    </DetailPage>
  );
}
