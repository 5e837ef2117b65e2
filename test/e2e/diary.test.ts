// The farm app's Diary section (/manage/diary) in a real Chromium against a real Furrow on SQLite:
// an owner creates and assigns tasks, reads the week and a filtered list, deletes a task; a staff
// member at phone width in Vietnamese marks an own task done and writes what was done, sees the
// overdue one stand out, and is offered no create, delete or assign. Screenshots go to
// test-output/diary/. The browser's zone is Asia/Ho_Chi_Minh (UTC+7, no daylight saving).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { client } from '../support/app.js';
import {
  assertAccessible,
  assertFits,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
  waitForFocusedId,
} from '../support/browser.js';
import { loginToken } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'diary');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const ZONE_MS = 7 * 3600_000;

/** "YYYY-MM-DD HH:MM:SS" (UTC) of an instant. */
const apiTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
/** Today in the browser's zone at the given hour, as an instant. */
function todayAt(hour: number, now: number): number {
  const local = new Date(now + ZONE_MS);
  return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hour) - ZONE_MS;
}

describe('Diary section [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;
  const seed = { season: 0, planting: 0, care: 0, staff: 0 };
  let api: ReturnType<typeof client>;
  const created = async (path: string, json: unknown): Promise<number> => {
    const res = await api.post(path, { json });
    assert.equal(res.status, 201, `${path}: ${res.text}`);
    return (Array.isArray(res.body) ? res.body[0] : res.body.data).id as number;
  };

  before(async () => {
    api = client(suite.t.url, await loginToken(suite.t.url, suite.farm.code, suite.farm.owner));
    const users = await api.get('/api/users?page=0&pageLimit=100');
    seed.staff = (users.body as { id: number; username: string }[]).find(
      (user) => user.username === suite.staff.username,
    )!.id;
    const crop = await created('/api/crop/crop', { name: 'Jasmine rice', code: 'RICE-J', status: 1 });
    seed.season = await created('/api/crop/season', { name: 'Spring rice 2026', crop_id: crop, code: '' });
    await created('/api/diary/categories', { name: 'Land preparation' });
    seed.planting = await created('/api/diary/categories', { name: 'Planting' });
    seed.care = await created('/api/diary/categories', { name: 'Care' });
    const now = Date.now();
    await created('/api/diary/production', {
      name: 'Weed block A',
      start: apiTime(todayAt(6, now)),
      season_id: seed.season,
      category_task_id: seed.care,
      assigned_to: seed.staff,
    });
    await created('/api/diary/production', {
      name: 'Check water level',
      start: apiTime(now - 3 * 3600_000),
      end: apiTime(now - 2 * 3600_000),
      season_id: seed.season,
      category_task_id: seed.care,
      assigned_to: seed.staff,
    });
    await created('/api/diary/production', { name: 'Old plan', start: apiTime(todayAt(5, now)) });
  });

  it('an owner adds and assigns a task, reads the week and a filtered list, deletes a task (desktop)', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/diary');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Diary' }).waitFor();
    const today = page.locator('.week-day.is-today');
    await today.getByText('Weed block A').waitFor();
    await screenshot('01-week-desktop-en');
    await assertAccessible(page, 'week');

    // The stages tasks are grouped by: one more added.
    await page.getByRole('link', { name: 'Stages', exact: true }).click();
    await waitForFocus(page, 'h1', 'Stages of work');
    await page.locator('.stage-item', { hasText: 'Land preparation' }).waitFor();
    await page.getByLabel('Stage name', { exact: true }).fill('Harvest');
    await page.getByRole('button', { name: 'Add stage' }).click();
    await page.locator('.toast-info', { hasText: 'Stage Harvest added.' }).waitFor();
    await waitForFocusedId(page, 'stage-name');
    await page.locator('.stage-item', { hasText: 'Harvest' }).waitFor();
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Planting' });
    await page.getByLabel('Sub-stage name').fill('Transplanting');
    await page.getByRole('button', { name: 'Add sub-stage' }).click();
    await page.locator('.toast-info', { hasText: 'Sub-stage Transplanting added to Planting.' }).waitFor();
    await page.getByRole('list', { name: 'Sub-stages of Planting' }).getByText('Transplanting').waitFor();
    await screenshot('01b-stages-desktop-en');
    await assertAccessible(page, 'stages');
    await page.getByRole('link', { name: 'Back to the diary' }).click();
    await waitForFocus(page, 'h1', 'Diary');

    // Add a task on today from the week: a refused form first, then the task, assigned.
    await today.locator('.add-on-day').click();
    await waitForFocus(page, 'h1', 'Add a task');
    await page.getByLabel('Task', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.locator('#task-name-error', { hasText: 'Fill this in.' }).waitFor();
    await waitForFocusedId(page, 'task-name');
    await screenshot('02-form-error-desktop-en');
    await assertAccessible(page, 'form error');
    await page.getByLabel('Task', { exact: true }).fill('Transplant seedlings');
    await page.getByLabel('Season').selectOption({ label: 'Spring rice 2026' });
    await page.getByLabel('Stage').selectOption({ label: 'Planting' });
    await page.getByLabel('Transplanting').check();
    await page.getByLabel('Assigned to').selectOption({ label: suite.staff.username });
    assert.match(await page.getByLabel('Starts').inputValue(), /T07:00$/);
    await page.getByLabel('Place (optional)').fill('Block A');
    await page.getByRole('button', { name: 'Add task' }).click();
    await waitForFocus(page, 'h1', 'Diary');
    await page.locator('.toast-info', { hasText: 'Task Transplant seedlings added.' }).waitFor();
    const added = today.locator('.week-task', { hasText: 'Transplant seedlings' });
    await added.getByText(suite.staff.username).waitFor();
    await added.getByText('Planting · Transplanting').waitFor();
    await screenshot('03-week-added-desktop-en');
    await assertAccessible(page, 'week with the new task');

    // Another week and back: said aloud, the focus kept.
    await page.getByRole('button', { name: 'Next week' }).click();
    await page.locator('.toast-info', { hasText: /^Week of Mon \d+ \w+ to Sun \d+ \w+$/ }).waitFor();
    await waitForFocus(page, 'button', 'Next week →');
    await page.getByRole('button', { name: 'This week' }).click();
    await waitForFocus(page, 'h2', /^Week of /);
    await today.getByText('Transplant seedlings').waitFor();

    // The list, filtered by stage, then by person and status; the overdue task stands out in words.
    await page.getByRole('button', { name: 'List' }).click();
    await page.getByRole('heading', { name: 'Filter tasks' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'List' }).getAttribute('aria-pressed'), 'true');
    await page.getByText('4 tasks found').waitFor();
    await page.getByLabel('Stage').selectOption({ label: 'Planting' });
    await page.getByText('1 task found').waitFor();
    await page.locator('tbody tr', { hasText: 'Transplant seedlings' }).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.getByLabel('Stage').selectOption({ label: 'All stages' });
    await page.getByLabel('Person').selectOption({ label: suite.staff.username });
    await page.getByLabel('Status').selectOption({ label: 'Not done yet' });
    await page.getByText('3 tasks found').waitFor();
    const overdue = page.locator('tbody tr', { hasText: 'Check water level' });
    await overdue.getByText('Overdue').waitFor();
    assert.ok(
      /filter|person=/.test(page.url()) || page.url().includes('person='),
      'the filters are in the address',
    );
    await screenshot('04-list-filtered-desktop-en');
    await assertAccessible(page, 'filtered list');

    // Marked done from the list of open tasks: the row leaves, the result is said, the focus stays on the page.
    await page.getByRole('button', { name: 'Mark done: Transplant seedlings' }).click();
    await page.locator('.toast-info', { hasText: 'Transplant seedlings is marked done.' }).waitFor();
    await page.getByText('2 tasks found').waitFor();
    await waitForFocus(page, 'h1', 'Diary');

    // Delete after asking; the focus goes back to the page.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('4 tasks found').waitFor();
    await page.getByRole('button', { name: 'Delete Old plan' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the task Old plan?' });
    await dialog.waitFor();
    await assertAccessible(page, 'delete dialog');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.toast-info', { hasText: 'The task Old plan was deleted.' }).waitFor();
    await page.getByText('3 tasks found').waitFor();
    await waitForFocus(page, 'h1', 'Diary');

    // The same in Vietnamese at desktop width.
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { name: 'Lọc công việc' }).waitFor();
    await page.locator('tbody tr', { hasText: 'Check water level' }).getByText('Quá hạn').waitFor();
    await screenshot('05-list-desktop-vi');
    await assertAccessible(page, 'list, vi');
    await page.getByRole('button', { name: 'Tuần' }).click();
    await page.locator('.week-day.is-today').getByText('Transplant seedlings').waitFor();
    await screenshot('06-week-desktop-vi');
    await assertAccessible(page, 'week, vi');
  });

  it('staff at phone width in Vietnamese mark an own task done and write what they did', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/diary');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.staff, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Nhật ký' }).waitFor();
    const todays = page.locator('section', { has: page.getByRole('heading', { name: /^Hôm nay/ }) });
    const weed = page.locator('.task-card', { hasText: 'Weed block A' });
    await todays.locator('.task-card', { hasText: 'Weed block A' }).waitFor();
    await page.locator('.task-card', { hasText: 'Check water level' }).getByText('Quá hạn').waitFor();
    // Staff are offered no add, delete or assign.
    assert.equal(await page.getByRole('link', { name: 'Thêm công việc' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Xóa/ }).count(), 0);
    assert.equal(await page.getByRole('link', { name: /^Sửa/ }).count(), 0);
    await screenshot('07-staff-phone-vi');
    await assertFits(page, 'staff tasks');
    await assertAccessible(page, 'staff tasks, vi');

    await weed.getByRole('button', { name: 'Đánh dấu đã xong: Weed block A' }).click();
    await page.locator('.toast-info', { hasText: 'Đã đánh dấu Weed block A là đã xong.' }).waitFor();
    await waitForFocus(page, 'button', 'Chưa xong');
    await weed.getByText('Đã xong').waitFor();
    await screenshot('08-staff-done-phone-vi');
    await assertAccessible(page, 'marked done');

    await weed.getByRole('link', { name: 'Cập nhật việc đã làm cho Weed block A' }).click();
    await waitForFocus(page, 'h1', 'Cập nhật công việc của bạn');
    assert.equal(await page.getByLabel('Công việc', { exact: true }).count(), 0, 'no name field for staff');
    assert.equal(await page.getByLabel('Giao cho').count(), 0, 'no assign for staff');
    assert.equal(await page.getByLabel('Công việc này đã xong').isChecked(), true);
    await page.getByLabel('Việc đã làm, ghi chú').fill('Đã nhổ cỏ xong hai luống phía bắc.');
    await screenshot('09-staff-form-phone-vi');
    await assertFits(page, 'staff form');
    await assertAccessible(page, 'staff form');
    await page.getByRole('button', { name: 'Lưu thay đổi' }).click();
    await waitForFocus(page, 'h1', 'Nhật ký');
    await page.locator('.toast-info', { hasText: 'Đã lưu công việc Weed block A.' }).waitFor();
    await weed.getByText('Đã nhổ cỏ xong hai luống phía bắc.').waitFor();

    // The same page in English at phone width.
    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Diary' }).waitFor();
    await page.locator('.task-card', { hasText: 'Check water level' }).getByText('Overdue').waitFor();
    await screenshot('10-staff-phone-en');
    await assertFits(page, 'staff tasks, en');
    await assertAccessible(page, 'staff tasks, en');
  });

  it('an owner at phone width: the week day by day and the list as cards, in both languages', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/diary');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Diary' }).waitFor();
    await page.locator('.week-day.is-today').getByText('Transplant seedlings').waitFor();
    await screenshot('11-week-phone-en');
    await assertFits(page, 'week, phone');
    await assertAccessible(page, 'week, phone');
    await page.getByRole('button', { name: 'List' }).click();
    await page.getByText('3 tasks found').waitFor();
    await screenshot('12-list-phone-en');
    await assertFits(page, 'list, phone');
    await page.getByLabel('Language').selectOption('vi');
    await page.getByText('Tìm thấy 3 công việc').waitFor();
    await screenshot('13-list-phone-vi');
    await assertFits(page, 'list, phone, vi');
    await assertAccessible(page, 'list, phone, vi');
    await page.getByRole('button', { name: 'Tuần' }).click();
    await page.locator('.week-day.is-today').getByText('Transplant seedlings').waitFor();
    await screenshot('14-week-phone-vi');
    await assertFits(page, 'week, phone, vi');
  });
});
