import { resourceRoutes } from '../../platform/resource/routes.js';
import { Rule, RuleCreate, RuleUpdate } from './rule.schemas.js';
import { ruleService } from './rule.service.js';

export const ruleRoutes = resourceRoutes({
  tag: 'iot',
  noun: 'threshold rule',
  path: '/api/iot/rules',
  description: 'A rule aims at one device (device_id) or every device of a zone (zone_id).',
  schemas: { item: Rule, create: RuleCreate, update: RuleUpdate },
  service: ruleService,
});
