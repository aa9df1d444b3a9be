import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  canOperate,
  errorText,
  isAdmin,
  keyStore,
  runsAgent,
  type Session,
  whenKeyRefused,
} from './api';
import { ActionsPage } from './pages/actions';
import { AgentPage } from './pages/agent';
import { AssetsPage } from './pages/assets';
import { DocumentsPage } from './pages/documents';
import { AskPage, ChatPage } from './pages/ask';
import { KeysPage } from './pages/keys';
import { SearchPage } from './pages/search';
import { ToolsPage } from './pages/tools';

interface PageDef {
  path: string;
  title: string;
  visible: (s: Session) => boolean;
  render: (s: Session) => preact.JSX.Element;
}

const PAGES: PageDef[] = [
  { path: 'search', title: 'Search', visible: () => true, render: () => <SearchPage /> },
  {
    path: 'documents',
    title: 'Documents',
    visible: () => true,
    render: (s) => <DocumentsPage session={s} />,
  },
  { path: 'assets', title: 'Assets', visible: () => true, render: (s) => <AssetsPage session={s} /> },
  { path: 'tools', title: 'Tools and stages', visible: canOperate, render: () => <ToolsPage /> },
  { path: 'ask', title: 'Plan and ask', visible: canOperate, render: () => <AskPage /> },
  { path: 'chat', title: 'Chat', visible: () => true, render: () => <ChatPage /> },
  { path: 'agent', title: 'Agent', visible: runsAgent, render: (s) => <AgentPage session={s} /> },
  { path: 'actions', title: 'Pending actions', visible: canOperate, render: () => <ActionsPage /> },
  { path: 'keys', title: 'Keys', visible: isAdmin, render: (s) => <KeysPage session={s} /> },
];

function useHashRoute(): string {
  const read = () => location.hash.replace(/^#\/?/, '') || 'search';
  const [route, setRoute] = useState(read());
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice: string }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(notice);
  const submit = async (event: Event) => {
    event.preventDefault();
    keyStore.set(key.trim());
    const { data, error: failed } = await api.GET('/api/session');
    if (data) onSignedIn(data);
    else {
      keyStore.clear();
      setError(failed ? `The key was refused (${errorText(failed)})` : 'The key was refused');
    }
  };
  return (
    <main>
      <section>
        <h2>Sign in</h2>
        <p class="muted">
          Paste an API key. On first start the admin key is in DATA_DIR/admin-key. The key stays in this
          tab&apos;s session storage and is sent only as an Authorization header.
        </p>
        <form onSubmit={(e) => void submit(e)}>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            required
          />
          <button type="submit">Sign in</button>
        </form>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </section>
    </main>
  );
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [checking, setChecking] = useState(Boolean(keyStore.get()));
  const [notice, setNotice] = useState('');
  const route = useHashRoute();

  useEffect(() => {
    whenKeyRefused(() => {
      keyStore.clear();
      setSession(null);
      setNotice('The key was refused (revoked, expired or unknown): sign in again.');
    });
    if (keyStore.get())
      void api.GET('/api/session').then(({ data }) => {
        setSession(data ?? null);
        setChecking(false);
      });
  }, []);

  if (checking) return <p class="muted">Checking the key…</p>;
  if (!session) return <SignIn onSignedIn={(s) => (setNotice(''), setSession(s))} notice={notice} />;
  const pages = PAGES.filter((p) => p.visible(session));
  const page = pages.find((p) => p.path === route.split('/')[0]) ?? pages[0];
  document.title = `${page.title} · OPS console`;
  return (
    <>
      <header>
        <h1>OPS console</h1>
        <nav aria-label="Pages">
          {pages.map((p) => (
            <a key={p.path} href={`#/${p.path}`} aria-current={p === page ? 'page' : undefined}>
              {p.title}
            </a>
          ))}
        </nav>
        <span class="who">
          {session.tenant_slug} · {session.user_id} · <strong data-testid="role">{session.role}</strong>{' '}
          <button
            class="secondary"
            type="button"
            onClick={() => {
              keyStore.clear();
              setSession(null);
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <main id="page">{page.render(session)}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
