import { useTexts } from '../../app/texts';
import type { Role } from './api';
import { texts } from './texts';

export function RoleBadge({ role }: { role: Role }) {
  const { t } = useTexts(texts);
  return (
    <span className={`badge badge-role-${role}`}>
      {t(role === 'owner' ? 'role.owner_label' : 'role.staff_label')}
    </span>
  );
}
