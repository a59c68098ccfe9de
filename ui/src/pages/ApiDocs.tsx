import type { ComponentChildren } from 'preact';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Code2, KeyRound } from 'lucide-react';
import { ApiBasics } from '../components/apidocs/ApiBasics';
import { DatabaseCheck } from '../components/apidocs/DatabaseCheck';
import { EndpointList, type CurlContext } from '../components/apidocs/EndpointList';
import { GroupScan } from '../components/apidocs/GroupScan';
import { KeyGenerator } from '../components/apidocs/KeyGenerator';
import { KeyList } from '../components/apidocs/KeyList';
import { NewgenTest } from '../components/apidocs/NewgenTest';
import { useCopy } from '../components/commands/useCopy';
import { Tabs, type TabDef } from '../components/ui/Tabs';
import {
  ANALYTICS_ENDPOINTS,
  CORE_ENDPOINTS,
  GROUP_SCAN_ENDPOINTS,
  KEY_PLACEHOLDER,
  commandEndpoints,
  exampleCommand,
  exampleGuideCategory,
} from '../lib/apiDocs';
import { keyPrefix, type ApiKey } from '../lib/apiKeys';
import { useSite } from '../lib/site';
import type { Command, Guide } from '../lib/types';

const TABS: TabDef[] = [
  { id: 'getting-started', label: 'Getting Started' },
  { id: 'core', label: 'Core APIs' },
  { id: 'group-scanning', label: 'Group Scanning' },
  { id: 'commands-guides', label: 'Commands & Guides' },
  { id: 'analytics', label: 'Analytics' },
  { id: 'testing', label: 'Testing' },
];

/** The tab named by the address's #hash, so a tab can be linked to. */
function tabFromHash(): string {
  const id = typeof window === 'undefined' ? '' : window.location.hash.slice(1);
  return TABS.some((t) => t.id === id) ? id : TABS[0].id;
}

function TabIntro({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <div className="mb-4">
      <h2 className="text-xl font-semibold text-white">{title}</h2>
      <p className="mt-1 text-sm text-slate-300">{children}</p>
    </div>
  );
}

export default function ApiDocs() {
  const { data: site, isLoading: siteLoading } = useSite();
  const [tab, setTab] = useState(tabFromHash);
  // The key generated on this page in this session (kept in memory only: it is shown once).
  const [generated, setGenerated] = useState<ApiKey | null>(null);
  const { copy, copied } = useCopy();

  const publicKey = site?.publicApiKey ?? null;
  const apiKey = generated?.key ?? publicKey ?? KEY_PLACEHOLDER;
  const ctx: CurlContext = { origin: window.location.origin, apiKey, copy, copied };

  function changeTab(id: string) {
    setTab(id);
    window.history.replaceState(window.history.state, '', `#${id}`);
  }

  return (
    <div className="mx-auto w-full max-w-5xl px-4 py-8 sm:px-6 sm:py-10">
      <header className="mb-6">
        <h1 className="flex items-center gap-3 text-3xl font-extrabold tracking-tight text-white sm:text-4xl">
          <Code2 className="h-8 w-8 shrink-0 text-violet-400" aria-hidden="true" />
          API Documentation
        </h1>
        <p className="mt-2 text-slate-300">
          A keyed JSON API over this site&apos;s data. Every example below is a curl command for this server, ready to paste
          into a terminal.
        </p>
      </header>

      <CurrentKeyNotice generated={generated} publicKey={publicKey} loading={siteLoading} />

      <Tabs tabs={TABS} value={tab} onChange={changeTab} label="API documentation sections" idPrefix="api-docs">
        {tab === 'getting-started' && (
          <div className="grid gap-6">
            <ApiBasics ctx={ctx} />
            <KeyGenerator generated={generated} onGenerated={setGenerated} />
            <KeyList onRevoked={(prefix) => generated && keyPrefix(generated.key) === prefix && setGenerated(null)} />
          </div>
        )}
        {tab === 'core' && (
          <>
            <TabIntro title="Core APIs">The server&apos;s health and database, the site&apos;s counters, events, updates and the wiki search.</TabIntro>
            <EndpointList endpoints={CORE_ENDPOINTS} ctx={ctx} />
          </>
        )}
        {tab === 'group-scanning' && <GroupScanning ctx={ctx} apiKey={apiKey === KEY_PLACEHOLDER ? '' : apiKey} />}
        {tab === 'commands-guides' && <CommandsAndGuides ctx={ctx} />}
        {tab === 'analytics' && (
          <>
            <TabIntro title="Analytics">Visits as the server counts them, ratings and favorites, and the event feed.</TabIntro>
            <EndpointList endpoints={ANALYTICS_ENDPOINTS} ctx={ctx} />
          </>
        )}
        {tab === 'testing' && (
          <>
            <TabIntro title="Testing">Try a key against the server: a newgen check of a player, and the database status (both answer only to a valid key).</TabIntro>
            <div className="grid gap-6">
              <NewgenTest currentKey={apiKey === KEY_PLACEHOLDER ? '' : apiKey} />
              <DatabaseCheck currentKey={apiKey === KEY_PLACEHOLDER ? '' : apiKey} />
            </div>
          </>
        )}
      </Tabs>
    </div>
  );
}

/** Which key the examples use, said plainly. */
function CurrentKeyNotice({ generated, publicKey, loading }: { generated: ApiKey | null; publicKey: string | null; loading: boolean }) {
  let text: ComponentChildren;
  if (generated) {
    text = (
      <>
        The examples use <strong className="text-white">your new key “{generated.name}”</strong> (
        <code className="font-mono text-emerald-300">{keyPrefix(generated.key)}…</code>), generated on this page.
      </>
    );
  } else if (publicKey) {
    text = (
      <>
        The examples use <strong className="text-white">the site&apos;s public key</strong>, shared by everyone (its limits
        count per IP). Generate your own key on Getting Started and the examples switch to it.
      </>
    );
  } else if (loading) {
    text = 'Loading the site settings...';
  } else {
    text = (
      <>
        This server has no public key: generate a key on Getting Started and the examples use it. Until then they show{' '}
        <code className="font-mono text-emerald-300">{KEY_PLACEHOLDER}</code>.
      </>
    );
  }
  return (
    <p data-testid="current-key" className="mb-6 flex items-start gap-2 rounded-xl border border-violet-500/40 bg-violet-950/40 p-4 text-sm text-slate-200">
      <KeyRound size={18} aria-hidden="true" className="mt-0.5 shrink-0 text-violet-300" />
      <span>{text}</span>
    </p>
  );
}

function GroupScanning({ ctx, apiKey }: { ctx: CurlContext; apiKey: string }) {
  return (
    <>
      <TabIntro title="Group Scanning">Scanning a group&apos;s members for their badges, with progress and leaderboards.</TabIntro>
      <div className="grid gap-6">
        <GroupScan apiKey={apiKey} />
        <EndpointList endpoints={GROUP_SCAN_ENDPOINTS} ctx={ctx} />
      </div>
    </>
  );
}

/** Commands & Guides: the category examples use a category that exists in this site's data. */
function CommandsAndGuides({ ctx }: { ctx: CurlContext }) {
  const commands = useQuery<Command[]>({ queryKey: ['/api/commands'] });
  const guides = useQuery<Guide[]>({ queryKey: ['/api/guides'] });
  const endpoints = commandEndpoints({
    command: exampleCommand(commands.data),
    guideCategory: exampleGuideCategory(guides.data),
  });
  return (
    <>
      <TabIntro title="Commands & Guides">
        The commands database and the guides, paged, by category and searched. Paging: page from 1, limit from 1 to 100
        (20 by default); anything else answers 400 naming the field.
      </TabIntro>
      <EndpointList endpoints={endpoints} ctx={ctx} />
    </>
  );
}
