import { Suspense, lazy, useCallback, useState } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { Route, Switch, useLocation } from 'wouter';
import { queryClient } from './lib/queryClient';
import { useAfterFirstPaint } from './lib/firstPaint';
import { useDocumentTitle } from './lib/site';
import { useShortcuts } from './lib/shortcuts';
import { BottomBanner } from './components/BottomBanner';
import { Footer } from './components/Footer';
import { FullscreenAd } from './components/FullscreenAd';
import { Navigation } from './components/Navigation';
import { PageLoader } from './components/PageLoader';
import { PageviewTracker } from './components/PageviewTracker';
import { PrivacyPanel } from './components/PrivacyPanel';
import { ShortcutsButton, ShortcutsPanel } from './components/ShortcutsPanel';
import { Toaster } from './components/Toaster';
import Home from './pages/Home';
import NotFound from './pages/NotFound';

const Commands = lazy(() => import('./pages/Commands'));
const Guides = lazy(() => import('./pages/Guides'));
const Community = lazy(() => import('./pages/Community'));
const Login = lazy(() => import('./pages/Login'));
const Account = lazy(() => import('./pages/Account'));
const Admin = lazy(() => import('./pages/Admin'));
const AdminAccess = lazy(() => import('./pages/AdminAccess'));
const GenerateKey = lazy(() => import('./pages/GenerateKey'));
const ApiDocs = lazy(() => import('./pages/ApiDocs'));
const Advertise = lazy(() => import('./pages/Advertise'));
const BadgeMonitor = lazy(() => import('./pages/BadgeMonitor'));
const NewgenDetector = lazy(() => import('./pages/NewgenDetector'));
const DiscordBotApi = lazy(() => import('./pages/DiscordBotApi'));
const DiscordNews = lazy(() => import('./pages/DiscordNews'));

function Routes() {
  return (
    <Switch>
      <Route path="/" component={Home} />
      <Route path="/commands" component={Commands} />
      <Route path="/guides" component={Guides} />
      <Route path="/community" component={Community} />
      <Route path="/login" component={Login} />
      <Route path="/account" component={Account} />
      <Route path="/admin" component={Admin} />
      <Route path="/admin-access" component={AdminAccess} />
      <Route path="/generate-key" component={GenerateKey} />
      <Route path="/api-docs" component={ApiDocs} />
      <Route path="/advertise" component={Advertise} />
      <Route path="/badge-monitor" component={BadgeMonitor} />
      <Route path="/newgen-detector" component={NewgenDetector} />
      <Route path="/discord-bot-api" component={DiscordBotApi} />
      <Route path="/discord-news" component={DiscordNews} />
      <Route component={NotFound} />
    </Switch>
  );
}

function Shell() {
  const [location, navigate] = useLocation();
  useDocumentTitle(location);
  const [menuOpen, setMenuOpen] = useState(false);
  const [privacyOpen, setPrivacyOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [adOpen, setAdOpen] = useState(false);
  // The footer and the bottom banner wait for the first paint (see useAfterFirstPaint).
  const later = useAfterFirstPaint();

  const closePanels = useCallback(() => {
    setMenuOpen(false);
    setPrivacyOpen(false);
    setShortcutsOpen(false);
    setAdOpen(false);
  }, []);

  const openShortcuts = () => {
    setMenuOpen(false);
    setPrivacyOpen(false);
    setShortcutsOpen(true);
  };

  useShortcuts({
    navigate: (path) => {
      setMenuOpen(false);
      navigate(path);
    },
    openShortcuts,
    closePanels,
  });

  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only rounded-lg bg-violet-600 px-4 py-2 text-white focus:not-sr-only focus:fixed focus:left-4 focus:top-2 focus:z-[70]"
      >
        Skip to content
      </a>
      <Navigation
        onOpenPrivacy={() => setPrivacyOpen(true)}
        onOpenShortcuts={openShortcuts}
        menuOpen={menuOpen}
        onMenuOpenChange={setMenuOpen}
      />
      <main id="main" tabIndex={-1} className="flex-1 pt-16 outline-none">
        <Suspense fallback={<PageLoader />}>
          <Routes />
        </Suspense>
      </main>
      {later && <Footer />}
      {/* The bottom band: sticky, so the end of every page keeps room for it and nothing stays under it. */}
      <div data-testid="bottom-band" className="pointer-events-none sticky bottom-0 z-40 flex flex-col">
        <ShortcutsButton onClick={openShortcuts} />
        {later && <BottomBanner onTestFullscreen={() => setAdOpen(true)} />}
      </div>
      <PrivacyPanel open={privacyOpen} onClose={() => setPrivacyOpen(false)} />
      <ShortcutsPanel open={shortcutsOpen} onClose={() => setShortcutsOpen(false)} />
      <FullscreenAd open={adOpen} onOpenChange={setAdOpen} />
      <Toaster />
      <PageviewTracker />
    </div>
  );
}

export default function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <Shell />
    </QueryClientProvider>
  );
}
