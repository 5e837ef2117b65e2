import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  clearThresholdFits,
  INITIAL_STATE,
  isBreach,
  isCleared,
  OPERATORS,
  type RuleCondition,
  type RuleState,
  renderAlertMessage,
  stepRuleState,
} from './thresholds.js';

/** Runs readings (value, recorded_at) through a rule from the initial state: what each one did. */
function run(rule: RuleCondition, readings: readonly (readonly [number, number])[]) {
  let state: RuleState = INITIAL_STATE;
  return readings.map(([value, recordedAt]) => {
    const step = stepRuleState(state, { value, recordedAt }, rule);
    state = step.state;
    return step.raise ? 'raise' : step.resolve ? 'resolve' : '-';
  });
}

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
    assert.deepEqual(step.state, { ...INITIAL_STATE, breached: true, lastRecordedAt: 1 });
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

  it('resolves past the clear threshold, and nothing happens between it and the threshold', () => {
    const rule = { operator: 'gt' as const, threshold: 30, clearThreshold: 28 };
    const at = (values: number[]) => values.map((v, i) => [v, 1000 * (i + 1)] as const);
    assert.deepEqual(run(rule, at([30, 31, 29.5, 30.5, 28.01, 27])), [
      '-',
      'raise',
      '-',
      '-',
      '-',
      'resolve',
    ]);
    // The clear threshold itself is back to normal for gt; a new crossing raises again.
    assert.deepEqual(run(rule, at([31, 28, 29, 31])), ['raise', 'resolve', '-', 'raise']);
    // Without a clear threshold the threshold itself resolves: 30 is not beyond "> 30".
    assert.deepEqual(run({ operator: 'gt', threshold: 30 }, at([31, 30, 31])), ['raise', 'resolve', 'raise']);
  });

  it('decides "back past the clear threshold" strictly for inclusive operators', () => {
    assert.equal(isCleared(28, 'gt', 28), true);
    assert.equal(isCleared(28, 'gte', 28), false);
    assert.equal(isCleared(27.99, 'gte', 28), true);
    assert.equal(isCleared(12, 'lt', 12), true);
    assert.equal(isCleared(12, 'lte', 12), false);
    assert.equal(isCleared(12.01, 'lte', 12), true);
    const lte = { operator: 'lte' as const, threshold: 10, clearThreshold: 12 };
    assert.deepEqual(
      run(lte, [
        [10, 1],
        [12, 2],
        [12.5, 3],
        [10, 4],
      ]),
      ['raise', '-', 'resolve', 'raise'],
    );
  });

  it('accepts a clear threshold only on the normal side of the threshold, or on it', () => {
    assert.equal(clearThresholdFits('gt', 30, 28), true);
    assert.equal(clearThresholdFits('gte', 30, 30), true);
    assert.equal(clearThresholdFits('gt', 30, 31), false);
    assert.equal(clearThresholdFits('lt', 10, 12), true);
    assert.equal(clearThresholdFits('lte', 10, 10), true);
    assert.equal(clearThresholdFits('lt', 10, 9), false);
  });

  it('raises only once the breach has lasted the minimum duration', () => {
    const rule = { operator: 'gt' as const, threshold: 30, minDurationMs: 60_000 };
    // Beyond at 0 s and 30 s: pending; at 60 s still beyond and a whole minute on: raise.
    assert.deepEqual(
      run(rule, [
        [31, 0],
        [35, 30_000],
        [32, 60_000],
        [33, 90_000],
      ]),
      ['-', '-', 'raise', '-'],
    );
    // A reading back on the normal side cancels the pending breach: the minute starts again.
    assert.deepEqual(
      run(rule, [
        [31, 0],
        [29, 30_000],
        [31, 40_000],
        [31, 70_000],
        [31, 100_000],
      ]),
      ['-', '-', '-', '-', 'raise'],
    );
    // A breach that ends before its minute is up raises nothing, even after a long gap.
    assert.deepEqual(
      run(rule, [
        [31, 0],
        [20, 59_999],
        [31, 500_000],
      ]),
      ['-', '-', '-'],
    );
    // Between threshold and clear threshold is not beyond the threshold: it cancels a pending breach.
    assert.deepEqual(
      run({ ...rule, clearThreshold: 25 }, [
        [31, 0],
        [29, 30_000],
        [31, 60_000],
      ]),
      ['-', '-', '-'],
    );
  });

  it('keeps the start of a pending breach through out-of-order readings', () => {
    const rule = { operator: 'lt' as const, threshold: 10, minDurationMs: 10_000 };
    const pending = stepRuleState(INITIAL_STATE, { value: 5, recordedAt: 20_000 }, rule).state;
    assert.equal(pending.pendingSince, 20_000);
    const older = stepRuleState(pending, { value: 50, recordedAt: 15_000 }, rule);
    assert.deepEqual(older.state, pending);
    assert.equal(stepRuleState(older.state, { value: 5, recordedAt: 30_000 }, rule).raise, true);
  });

  it('keeps the active alert id until the alert resolves', () => {
    const rule = { operator: 'gt' as const, threshold: 30 };
    const active: RuleState = { ...INITIAL_STATE, breached: true, lastRecordedAt: 1, activeAlertId: 41 };
    assert.equal(stepRuleState(active, { value: 35, recordedAt: 2 }, rule).state.activeAlertId, 41);
    const resolved = stepRuleState(active, { value: 20, recordedAt: 3 }, rule);
    assert.equal(resolved.resolve, true);
    assert.deepEqual(resolved.state, { ...INITIAL_STATE, lastRecordedAt: 3 });
  });

  it('alternates raise and resolve, never both at once, whatever the readings (property)', () => {
    const condition = fc
      .record({
        operator: fc.constantFrom(...OPERATORS),
        threshold: fc.integer({ min: -50, max: 50 }),
        gap: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
        minDurationMs: fc.constantFrom(0, 1000, 5000),
      })
      .map(({ operator, threshold, gap, minDurationMs }) => ({
        operator,
        threshold,
        minDurationMs,
        clearThreshold:
          gap === undefined
            ? null
            : operator === 'gt' || operator === 'gte'
              ? threshold - gap
              : threshold + gap,
      }));
    const readings = fc.array(
      fc.record({
        value: fc.integer({ min: -80, max: 80 }),
        recordedAt: fc.integer({ min: 0, max: 60_000 }),
      }),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(condition, readings, (rule, list) => {
        let state: RuleState = INITIAL_STATE;
        let newest = Number.NEGATIVE_INFINITY;
        let active = false;
        for (const reading of list) {
          const step = stepRuleState(state, reading, rule);
          assert.ok(!(step.raise && step.resolve), 'a reading raised and resolved');
          if (reading.recordedAt < newest) {
            // Out of order: nothing moves.
            assert.deepEqual(step.state, state);
            assert.ok(!step.raise && !step.resolve);
          } else {
            newest = reading.recordedAt;
            const beyond = isBreach(reading.value, rule.operator, rule.threshold);
            if (step.raise) {
              assert.ok(!active && beyond, 'raised while active, or on a normal reading');
              assert.ok(
                reading.recordedAt - (state.pendingSince ?? reading.recordedAt) >= rule.minDurationMs,
              );
            }
            if (step.resolve) {
              assert.ok(active, 'resolved with no active alert');
              assert.ok(isCleared(reading.value, rule.operator, rule.clearThreshold ?? rule.threshold));
            }
            // While an alert is active, a reading beyond the threshold never resolves it.
            if (active && beyond) assert.ok(!step.resolve);
            // With no minimum duration, a reading beyond the threshold always leaves an alert active.
            if (rule.minDurationMs === 0 && beyond) assert.ok(step.state.breached);
          }
          if (step.raise) active = true;
          if (step.resolve) active = false;
          assert.equal(step.state.breached, active);
          state = step.state;
        }
      }),
      { numRuns: 500 },
    );
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
