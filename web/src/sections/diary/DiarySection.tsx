// The Diary section: the diary (week, list, or a staff member's own tasks) and the task form.
import { Outlet } from '@tanstack/react-router';
import './diary.css';

export default function DiarySection() {
  return <Outlet />;
}
