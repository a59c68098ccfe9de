import { render } from 'preact';
import App from './App';
import { queryClient } from './lib/queryClient';
import { seedSiteFromShell } from './lib/site';
import './index.css';

seedSiteFromShell(queryClient);
const root = document.getElementById('app');
if (root) render(<App />, root);
