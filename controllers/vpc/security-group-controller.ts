/** The SecurityGroup controller: checks every rule; a group source must be a group of the same VPC. */
import { SPEC_RULE_FIELDS, securityGroupRuleProblems } from './engine.js';
import { SECURITY_GROUP, type SecurityGroup } from '../../crds/vpc.js';
import type { ControllerDefinition } from '../runtime/controller.js';
import { partReconciler, PART_READS } from './part-reconciler.js';
import { cachedParts, vpcRefIndexes } from './parts.js';
import { VpcValidationError } from './validation.js';

export const securityGroupController: ControllerDefinition = {
  name: 'security-group',
  for: SECURITY_GROUP,
  reads: PART_READS,
  indexes: vpcRefIndexes(SECURITY_GROUP),
  reconcile: partReconciler<SecurityGroup>({
    type: SECURITY_GROUP,
    async converge(group, vpc, context) {
      const groups = cachedParts<SecurityGroup>(
        context.cache,
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
