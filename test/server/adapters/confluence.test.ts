import { describe, expect, test } from 'vitest';
import { authorizationHeader } from '../../../server/adapters/confluence/client.js';
import {
  defaultDeployment,
  normalizeBaseUrl,
  pageUrl,
  spaceUrl,
} from '../../../server/domain/knowledge/confluence/site.js';
import { storageToHtml } from '../../../server/adapters/confluence/storage-format.js';
import { extract } from '../../../server/adapters/extraction/index.js';

describe('Confluence site addresses', () => {
  test('the deployment defaults by host; Cloud loses the /wiki the browser shows, Data Center keeps its context path', () => {
    expect(defaultDeployment('https://acme.atlassian.net/wiki')).toBe('cloud');
    expect(defaultDeployment('https://wiki.acme.com/confluence')).toBe('datacenter');
    expect(defaultDeployment('https://atlassian.net.evil.example')).toBe('datacenter');
    expect(normalizeBaseUrl('https://ACME.atlassian.net/wiki/')).toBe('https://acme.atlassian.net');
    expect(normalizeBaseUrl('https://wiki.acme.com/confluence/?x=1#y')).toBe('https://wiki.acme.com/confluence');
    expect(normalizeBaseUrl('http://10.0.0.5:8090/wiki', 'datacenter')).toBe('http://10.0.0.5:8090/wiki');
    for (const bad of ['wiki.acme.com', 'ftp://acme.com', 'https://user:pw@acme.atlassian.net', ''])
      expect(normalizeBaseUrl(bad), bad).toBeNull();
  });

  test('API roots, browser addresses and Authorization per deployment', () => {
    const cloud = { baseUrl: 'https://acme.atlassian.net', deployment: 'cloud' as const };
    const dc = { baseUrl: 'https://wiki.acme.com/confluence', deployment: 'datacenter' as const };
    expect(pageUrl(cloud, '42')).toBe('https://acme.atlassian.net/wiki/pages/viewpage.action?pageId=42');
    expect(pageUrl(dc, '42')).toBe('https://wiki.acme.com/confluence/pages/viewpage.action?pageId=42');
    expect(spaceUrl(cloud, '~jane')).toBe('https://acme.atlassian.net/wiki/spaces/~jane');
    expect(spaceUrl(dc, 'DOCS')).toBe('https://wiki.acme.com/confluence/display/DOCS');
    expect(authorizationHeader(cloud, { email: 'jane@acme.com', apiToken: 't0k' })).toBe(
      `Basic ${Buffer.from('jane@acme.com:t0k').toString('base64')}`,
    );
    expect(authorizationHeader(dc, { apiToken: 'pat' })).toBe('Bearer pat');
  });
});

describe('storage format -> HTML', () => {
  const storage = [
    '<h1>Overview</h1><p>Intro with <strong>bold</strong> &amp; an entity.</p>',
    '<ac:structured-macro ac:name="code" ac:schema-version="1"><ac:parameter ac:name="language">typescript</ac:parameter>',
    '<ac:plain-text-body><![CDATA[const a = b < c && d > e;\n  return "<b>";]]></ac:plain-text-body></ac:structured-macro>',
    '<h2>Tasks</h2><ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Rotate the keys</ac:task-body></ac:task></ac:task-list>',
    '<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><p>Left cell text.</p></ac:layout-cell><ac:layout-cell><p>Right cell text.</p></ac:layout-cell></ac:layout-section></ac:layout>',
    '<p><ac:image ac:height="250"><ri:attachment ri:filename="diagram.png" /></ac:image>After the image.</p>',
    '<p>Cut off at the end <![CDATA[tail text',
  ].join('');

  test('CDATA becomes escaped text in <pre>, parameters and task ids are left out, layouts are blocks', () => {
    const html = storageToHtml(storage, 'Guide <v2>');
    expect(html).toContain('<title>Guide &lt;v2&gt;</title>');
    expect(html).toContain('<pre>const a = b &lt; c &amp;&amp; d &gt; e;\n  return "&lt;b&gt;";</pre>');
    expect(html).not.toMatch(/typescript|incomplete|diagram\.png|ac:|ri:|CDATA/);
    expect(html).toContain('<ul><li><span>Rotate the keys</span></li></ul>');
    expect(html).toContain('tail text');
  });

  test('the extractor reads it with its heading structure and the code verbatim', async () => {
    const doc = await extract({
      bytes: Buffer.from(storageToHtml(storage, 'Guide')),
      kind: 'html',
      url: 'https://wiki.acme.com/display/DOCS/Guide',
    });
    expect(doc.title).toBe('Guide');
    const byPath = Object.fromEntries(doc.sections.map((s) => [s.headingPath.join(' > '), s.text]));
    expect(byPath['Overview']).toContain('const a = b < c && d > e;\n  return "<b>";');
    expect(byPath['Overview']).toContain('Intro with bold & an entity.');
    expect(byPath['Overview > Tasks']).toContain('Rotate the keys');
    expect(byPath['Overview > Tasks']).toMatch(/Left cell text\.\n\nRight cell text\./);
  });
});
