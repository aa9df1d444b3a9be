import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Schemas, type Session } from '../api';

type Role = Schemas['CreateApiKeyRequestDto']['role'];

export function KeysPage({ session }: { session: Session }) {
  const [keys, setKeys] = useState<Schemas['ApiKeyView'][]>([]);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('reader');
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState('');

  const load = async () => {
    const { data, error: failed } = await api.GET('/api/keys');
    if (data) setKeys(data.keys);
    else setError(errorText(failed));
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (event: Event) => {
    event.preventDefault();
    setError('');
    const { data, error: failed } = await api.POST('/api/keys', { body: { name, role } });
    if (!data) return setError(errorText(failed));
    setSecret({ name, secret: data.secret });
    setName('');
    await load();
  };
  const revoke = async (key: Schemas['ApiKeyView']) => {
    if (key.id === session.key_id && !confirm('This is the key you are signed in with. Revoke it?')) return;
    const { error: failed } = await api.DELETE('/api/keys/{id}', { params: { path: { id: key.id } } });
    if (failed) setError(errorText(failed));
    await load();
  };

  return (
    <>
      <section>
        <h2>Create a key</h2>
        <form onSubmit={(e) => void create(e)} class="row">
          <div>
            <label for="key-name">Name</label>
            <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
          </div>
          <div>
            <label for="key-role">Role</label>
            <select id="key-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {['reader', 'operator', 'admin', 'service'].map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </div>
          <div>
            <button type="submit">Create key</button>
          </div>
        </form>
        {secret && (
          <div role="status">
            <p>
              Key <strong>{secret.name}</strong> created. Copy the secret now: it is shown only once.
            </p>
            <p class="secret" data-testid="new-secret">
              {secret.secret}
            </p>
            <button type="button" class="secondary" onClick={() => setSecret(null)}>
              I have copied it
            </button>
          </div>
        )}
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </section>
      <section>
        <h2>Keys</h2>
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Prefix</th>
                <th>Role</th>
                <th>Last used</th>
                <th>State</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-testid={`key-${k.name}`}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>{k.role}</td>
                  <td>{k.last_used_at ?? 'never'}</td>
                  <td>{k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}</td>
                  <td>
                    {!k.revoked_at && (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Revoke ${k.name}`}
                        onClick={() => void revoke(k)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
