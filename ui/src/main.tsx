import { hydrate, render } from 'preact';
import App from './App';
import { queryClient } from './lib/queryClient';
import { seedSiteFromShell } from './lib/site';
import { captureAdminKeyFromUrl } from './lib/admin/urlKey';
import './index.css';

// First of all: an admin key in the address leaves it before anything else loads.
captureAdminKeyFromUrl();
seedSiteFromShell(queryClient);
const root = document.getElementById('app');
// A shell that carries its page's first screen (src/shell/first_screen.rs) is hydrated in place, so
// what is already painted stays where it is.
if (root?.firstElementChild) hydrate(<App />, root);
else if (root) render(<App />, root);
// The app now handles input. A shell with a first screen is painted before this script runs, so
// its buttons answer only from here on (the end-to-end tests wait for this mark).
document.documentElement.dataset.app = 'ready';
