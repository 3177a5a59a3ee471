/** The SecurityGroup controller: checks every rule; a group source must be a group of the same VPC. */
import { SECURITY_GROUP, type SecurityGroup, type SecurityGroupRule } from '../../crds/vpc.js';
import type { ControllerDefinition } from '../runtime/controller.js';
import { partReconciler, PART_READS } from './part-reconciler.js';
import { listParts } from './parts.js';
import { checkSecurityGroupRule, collectProblems, VpcValidationError } from './validation.js';

/** Field names as the caller spells them: REST (`inbound_rules`, `port_range`) or the object's. */
export interface RuleFieldNames {
  inbound: string;
  outbound: string;
  portRange: string;
}

export const SPEC_RULE_FIELDS: RuleFieldNames = {
  inbound: 'spec.inboundRules',
  outbound: 'spec.outboundRules',
  portRange: 'portRange',
};

/** Every problem of the group's rules; `groupIds` are the security groups of its VPC. */
export function securityGroupRuleProblems(
  rules: { inbound: readonly SecurityGroupRule[]; outbound: readonly SecurityGroupRule[] },
  groupIds: ReadonlySet<string>,
  names: RuleFieldNames,
) {
  const check = (field: string, rule: SecurityGroupRule, portRangeRequired: boolean) => () =>
    checkSecurityGroupRule(field, rule, { groupIds, portRangeRequired, names });
  return collectProblems([
    ...rules.inbound.map((rule, index) => check(`${names.inbound}[${index}]`, rule, true)),
    ...rules.outbound.map((rule, index) => check(`${names.outbound}[${index}]`, rule, false)),
  ]);
}

export const securityGroupController: ControllerDefinition = {
  name: 'security-group',
  for: SECURITY_GROUP,
  reads: PART_READS,
  reconcile: partReconciler<SecurityGroup>({
    type: SECURITY_GROUP,
    async converge(group, vpc, context) {
      const groups = await listParts<SecurityGroup>(
        context.store,
        SECURITY_GROUP,
        group.metadata.namespace!,
        vpc.metadata.name,
      );
      const groupIds = new Set([group.metadata.name, ...groups.map((other) => other.metadata.name)]);
      const problems = securityGroupRuleProblems(
        { inbound: group.spec?.inboundRules ?? [], outbound: group.spec?.outboundRules ?? [] },
        groupIds,
        SPEC_RULE_FIELDS,
      );
      if (problems.length > 0) throw new VpcValidationError(problems);
      return {};
    },
  }),
};
