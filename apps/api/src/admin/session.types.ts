import type { Role } from '@app/platform';

/** Who the presented key is: what a client (the console) needs to show only what the key may do. */
export interface SessionView {
  tenant_id: string;
  tenant_slug: string;
  user_id: string;
  role: Role;
  key_id: string;
  is_system_admin: boolean;
}
