import { describe, expect, it } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { site } from '../test/helpers';
import { SITE_DATA_ID, SITE_KEY, documentTitleFor, readEmbeddedSite, seedSiteFromShell } from './site';

function docWith(html: string): Document {
  const doc = document.implementation.createHTMLDocument('t');
  doc.body.innerHTML = html;
  return doc;
}

describe('site settings embedded in the shell', () => {
  it('seeds the query cache from the JSON block, escaped as the server writes it', () => {
    // the server escapes < > & as \u003c \u003e \u0026 inside the block
    const withTricks = { ...site, tagline: '</script><!-- & more' };
    const json = JSON.stringify(withTricks).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
    const doc = docWith(`<script type="application/json" id="${SITE_DATA_ID}">${json}</script>`);
    const client = new QueryClient();
    expect(seedSiteFromShell(client, doc)).toBe(true);
    expect(client.getQueryData(SITE_KEY)).toEqual(withTricks);
  });

  it('leaves the cache alone without a block, or with one that is not the settings', () => {
    for (const html of ['', `<script type="application/json" id="${SITE_DATA_ID}">{not json</script>`, `<script type="application/json" id="${SITE_DATA_ID}">[1]</script>`]) {
      const client = new QueryClient();
      expect(seedSiteFromShell(client, docWith(html))).toBe(false);
      expect(client.getQueryData(SITE_KEY)).toBeUndefined();
    }
    expect(readEmbeddedSite(docWith(''))).toBeNull();
  });

  it('names the document after the page, or the not-found page', () => {
    expect(documentTitleFor(site, '/commands')).toBe('Commands | Test Game Hub');
    expect(documentTitleFor(site, '/nope')).toBe('404 Page Not Found | Test Game Hub');
  });
});
