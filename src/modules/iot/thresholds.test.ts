import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INITIAL_STATE, isBreach, type RuleState, renderAlertMessage, stepRuleState } from './thresholds.js';

describe('threshold rules', () => {
  it('compares with each operator', () => {
    assert.equal(isBreach(30, 'gt', 30), false);
    assert.equal(isBreach(30.1, 'gt', 30), true);
    assert.equal(isBreach(30, 'gte', 30), true);
    assert.equal(isBreach(29.9, 'gte', 30), false);
    assert.equal(isBreach(10, 'lt', 10), false);
    assert.equal(isBreach(9, 'lt', 10), true);
    assert.equal(isBreach(10, 'lte', 10), true);
    assert.equal(isBreach(11, 'lte', 10), false);
  });

  it('raises once per crossing from the normal side and re-arms on return', () => {
    const rule = { operator: 'gt' as const, threshold: 30 };
    const values = [25, 31, 35, 40, 29, 28, 33, 33, 20, 31];
    let state: RuleState = INITIAL_STATE;
    const raised: number[] = [];
    values.forEach((value, i) => {
      const step = stepRuleState(state, { value, recordedAt: 1000 + i }, rule);
      if (step.raise) raised.push(value);
      state = step.state;
    });
    assert.deepEqual(raised, [31, 33, 31]);
  });

  it('raises on the very first reading when it is already beyond the threshold', () => {
    const step = stepRuleState(INITIAL_STATE, { value: 5, recordedAt: 1 }, { operator: 'lt', threshold: 10 });
    assert.equal(step.raise, true);
    assert.deepEqual(step.state, { breached: true, lastRecordedAt: 1 });
  });

  it('stores but ignores out-of-order readings for the state', () => {
    const rule = { operator: 'gt' as const, threshold: 30 };
    const breached = stepRuleState(INITIAL_STATE, { value: 35, recordedAt: 2000 }, rule).state;
    // An older normal reading does not re-arm the rule...
    const older = stepRuleState(breached, { value: 20, recordedAt: 1000 }, rule);
    assert.equal(older.raise, false);
    assert.deepEqual(older.state, breached);
    // ...so a newer breach still raises nothing.
    assert.equal(stepRuleState(older.state, { value: 36, recordedAt: 3000 }, rule).raise, false);
    // And an older breach does not raise on a normal state.
    const normal = stepRuleState(INITIAL_STATE, { value: 20, recordedAt: 5000 }, rule).state;
    assert.equal(stepRuleState(normal, { value: 50, recordedAt: 4000 }, rule).raise, false);
  });

  it('treats a reading with the same timestamp as in order', () => {
    const rule = { operator: 'gt' as const, threshold: 30 };
    const normal = stepRuleState(INITIAL_STATE, { value: 20, recordedAt: 1000 }, rule).state;
    assert.equal(stepRuleState(normal, { value: 31, recordedAt: 1000 }, rule).raise, true);
  });

  it('renders message templates', () => {
    const values = {
      device_code: 'greenhouse-1',
      device_name: 'Greenhouse sensor',
      metric: 'temperature',
      value: 41.5,
      threshold: 40,
      operator: 'gt' as const,
      severity: 'critical' as const,
    };
    assert.equal(
      renderAlertMessage(
        '{severity}: {device_name} {metric} {value} {operator} {threshold} {unknown}',
        values,
      ),
      'critical: Greenhouse sensor temperature 41.5 > 40 {unknown}',
    );
    assert.equal(renderAlertMessage(null, values), 'temperature on greenhouse-1 is 41.5 (> 40)');
    assert.equal(renderAlertMessage('  ', values), 'temperature on greenhouse-1 is 41.5 (> 40)');
  });
});
