/**
 * The console's knowledge and knowledge-gap pages in chromium against the real server: add the
 * README's quick-start site and watch its job run and finish (held mid-way to see it live), a
 * failed link said in words, a re-sync, search and open a document's passages, two files dropped
 * at once against the upload limits shown, and a question a real visitor asked that nobody could
 * answer, answered in place: the visitor's widget receives it and it becomes a custom response.
 * axe finds nothing; screenshots in test-artifacts/console/. The tests run in order on one
 * chatbot, each building on what the one before added.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveConfluence, storagePage, type ConfluenceStandin } from '../helpers/confluence-standin.js';
import { serveSite, type TestSite } from '../helpers/site.js';
import { serveYouTube, type YouTubeStandin } from '../helpers/youtube-standin.js';
import { axeViolations, consoleScreenshots, startConsole, type ConsoleHarness } from './console-helpers.js';

/** The quick start's pages, as the README writes them (`cat > name.html <<'EOF' … EOF`). */
function quickStartPages(): Record<string, string> {
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  const pages: Record<string, string> = {};
  for (const m of readme.matchAll(/cat > (\S+\.html) <<'EOF'\n([\s\S]*?)\nEOF/g)) pages[`/${m[1]}`] = m[2];
  if (!pages['/index.html'] || !pages['/delivery.html']) throw new Error('the README lost its quick-start pages');
  return { '/': pages['/index.html'], ...pages };
}

let h: ConsoleHarness;
let site: TestSite;
let confluence: ConfluenceStandin;
let youtube: YouTubeStandin;
let chatbotId: string;
/** Hold the delivery page's (and the slow page's) answer until released: a job is seen running. */
let releaseDelivery: () => void = () => undefined;
let releaseSlow: () => void = () => undefined;

beforeAll(async () => {
  const pages = quickStartPages();
  const held = new Promise<void>((r) => (releaseDelivery = r));
  const slow = new Promise<void>((r) => (releaseSlow = r));
  site = await serveSite({
    ...pages,
    '/delivery.html': (_req, res) =>
      void held.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end(pages['/delivery.html'])),
    '/slow.html': (_req, res) =>
      void slow.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end(pages['/returns.html'])),
  });
  confluence = await serveConfluence({
    spaces: [{ key: 'HELP', name: 'Help centre' }],
    pages: [
      {
        id: '101',
        spaceKey: 'HELP',
        title: 'Store pickup',
        body: storagePage({
          intro: 'Orders can be picked up in the Acme store.',
          sections: [{ heading: 'When', text: 'Pickup is possible from the next working day, between 10 and 18.' }],
        }),
      },
    ],
  });
  // Two and a half minutes of a shop's video, a sentence every ten seconds: two passages.
  const sentences = [
    "Hi, I'm Ada from Acme & Co.",
    'This video shows how returns work.',
    'You have thirty days to send an item back.',
    'Pack it in its original box if you still have it.',
    'Print the label from your order page.',
    'Drop the parcel at any post office.',
    'Returns from Norway take a little longer.',
    'We check every item when it arrives.',
    'Refunds reach your card within five working days.',
    'Gift cards are refunded as store credit.',
    'Sale items can be returned too.',
    'Opened earphones cannot be returned, for hygiene.',
    'Exchanges are free of charge.',
    'Choose the new size on the return form.',
    'Questions? Our chat answers day and night.',
    'Thanks for watching.',
  ];
  youtube = await serveYouTube({
    acmeReturns: {
      title: 'How returns work at Acme',
      captions: { lang: 'en', cues: sentences.map((text, i) => ({ start: i * 10, dur: 9.5, text })) },
    },
    noCaptions0: { title: 'Our new shop opening', captions: null },
  });
  h = await startConsole({
    env: {
      ALLOW_PRIVATE_FETCH: '127.0.0.1',
      QUEUE_POLL_MS: '20',
      FILE_MAX_BYTES: '1048576',
      YOUTUBE_BASE_URL: youtube.url,
    },
  });
  chatbotId = await h.createChatbot('Acme help');
}, 120_000);
afterAll(async () => {
  releaseDelivery();
  releaseSlow();
  await h?.close();
  await site?.close();
  await confluence?.close();
  await youtube?.close();
});

const job = (page: Page, n = 0) => page.locator('.kn-job').nth(n);
const count = (page: Page, name: string, n = 0) => job(page, n).locator(`[data-count="${name}"]`);
/** Waits until the newest job's status badge says `status`. */
const jobStatus = (page: Page, status: string, timeout = 30_000) =>
  job(page)
    .locator('.kn-badge')
    .filter({ hasText: new RegExp(`^${status}$`) })
    .waitFor({ timeout });

it(
  'adds the quick-start site and watches its job live, then a failed link, a re-sync, and a document opened',
  { timeout: 150_000 },
  async () => {
    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/knowledge` });
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // The kinds are tabs: arrow keys move between them.
    await page.getByRole('tab', { name: 'Website' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Sitemap' }).getAttribute('aria-selected')).toBe('true');
    await page.getByLabel('Sitemap address').waitFor();
    await page.keyboard.press('ArrowLeft');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Website');

    await page.getByLabel('Start address').fill(`${site.url}/`);
    await page.getByLabel('Read again automatically').selectOption({ label: 'Every day' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Added. The job below shows its progress.' }).waitFor();

    // Live: the job shows it is reading, with what it found so far, without a reload.
    await jobStatus(page, 'Reading');
    await expect.poll(() => count(page, 'found').textContent(), { timeout: 30_000 }).toBe('3');
    expect(Number(await count(page, 'done').textContent())).toBeLessThan(3);
    await job(page).getByRole('button', { name: 'Cancel' }).waitFor();
    const bar = job(page).getByRole('progressbar', { name: 'Progress of' });
    expect(Number(await bar.getAttribute('max'))).toBe(3);

    releaseDelivery();
    await jobStatus(page, 'Done');
    // Said to a screen reader too, not only shown.
    await page
      .getByRole('status')
      .filter({ hasText: `${new URL(site.url).host}: Done` })
      .waitFor();
    expect(await count(page, 'done').textContent()).toBe('3');
    expect(await count(page, 'failed').textContent()).toBe('0');
    expect(await job(page).getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    // The source and its documents appear once the job ends.
    await page.locator('.kn-sources').getByText('3 documents').waitFor();
    await page.locator('.kn-sources').getByText('Read again: every day').waitFor();
    const docs = page.locator('.kn-docs li');
    await expect.poll(() => docs.count()).toBe(3);

    // A link that is not there fails, and says why in words.
    await page.getByRole('tab', { name: 'Links' }).click();
    await page.getByLabel('Addresses, one per line').fill(`${site.url}/gift-cards.html`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await jobStatus(page, 'Failed');
    await job(page).getByText('1 page could not be read').click();
    await job(page).getByText('The page does not exist (HTTP 404).').waitFor();
    await job(page)
      .getByRole('link', { name: `${site.url}/gift-cards.html` })
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'knowledge', { fullPage: true });

    // Re-sync the website: a new job, triggered by hand, ends done; unchanged pages stay.
    const website = page.locator('.kn-sources li').filter({ hasText: 'Website' });
    await website.getByRole('button', { name: 'Read again' }).click();
    await job(page)
      .getByText(/^Read again ·/)
      .waitFor();
    await jobStatus(page, 'Done');
    await expect.poll(() => docs.count()).toBe(3);
    // Documents by source: the links gave none.
    const source = page.getByRole('combobox', { name: 'Source' });
    await source.selectOption({ label: 'Links' });
    await page.getByText('No document matches.').waitFor();
    await source.selectOption({ label: 'All' });
    await expect.poll(() => docs.count()).toBe(3);

    // Cancel a job while a page is in flight: it stops after that page.
    await page.getByRole('tab', { name: 'Links' }).click();
    await page.getByLabel('Addresses, one per line').fill(`${site.url}/slow.html`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await jobStatus(page, 'Reading');
    await job(page).getByRole('button', { name: 'Cancel' }).click();
    await job(page).getByText('Stopping after the pages in progress…').waitFor();
    releaseSlow();
    await jobStatus(page, 'Cancelled');

    // Search, then open a document: its passages, as the chatbot answers from them.
    await page.getByLabel('Search by title or address').fill('deliv');
    await expect.poll(() => docs.count()).toBe(1);
    await page.getByRole('button', { name: 'Open Delivery' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delivery' });
    await dialog.getByText('Standard delivery takes three to five working days').waitFor();
    await dialog.getByText('Passage 1').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'knowledge-document');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // Delete it: the chatbot no longer has it.
    await docs.first().getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete 1 selected' }).click();
    await page
      .getByRole('group', { name: /Delete this document\?/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('status').filter({ hasText: '1 document deleted.' }).waitFor();
    const left = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/documents`, h.app.ownerToken);
    const titles = left.body.data.documents.map((d: { title: string }) => d.title);
    expect(titles).not.toContain('Delivery');
    expect(titles).toContain('Acme help centre');

    // Delete a source after saying yes: it and its documents go.
    const sources = page.locator('.kn-sources > li');
    const before = await sources.count();
    const links = sources.filter({ hasText: /^Links/ }).first();
    await links.getByRole('button', { name: 'Delete' }).click();
    await links.getByRole('group').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => sources.count()).toBe(before - 1);
    expect(problems).toEqual([]);
    await close();
  },
);

it(
  'uploads two files dropped at once, after showing the limits (one over them is refused before upload); adds a text and a sitemap; imports a Confluence space',
  { timeout: 120_000 },
  async () => {
    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/knowledge` });
    await page.getByRole('tab', { name: 'Files' }).click();
    await page.getByText('Up to 10 files at once, each at most 1 MB, 60 MB together.').waitFor();

    const zone = page.getByTestId('file-drop');
    const drop = async (files: { name: string; type: string; text: string; size?: number }[]) => {
      const data = await page.evaluateHandle((list) => {
        const dt = new DataTransfer();
        for (const f of list) dt.items.add(new File([f.size ? 'x'.repeat(f.size) : f.text], f.name, { type: f.type }));
        return dt;
      }, files);
      await zone.dispatchEvent('dragenter', { dataTransfer: data });
      await zone.dispatchEvent('drop', { dataTransfer: data });
    };

    await drop([{ name: 'huge.txt', type: 'text/plain', text: '', size: 1_200_000 }]);
    await page.getByRole('alert').filter({ hasText: 'huge.txt is larger than 1 MB.' }).waitFor();
    expect(await page.getByRole('button', { name: 'Upload 1 file' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Remove huge.txt' }).click();

    await drop([
      {
        name: 'opening-hours.txt',
        type: 'text/plain',
        text: 'Opening hours\n\nThe Acme shop is open Monday to Saturday, 9 to 18.',
      },
      {
        name: 'gift-wrap.md',
        type: 'text/markdown',
        text: '# Gift wrapping\n\nEvery order can be gift wrapped for 2 EUR.',
      },
    ]);
    const chosen = page.getByRole('list', { name: 'Chosen files' });
    await chosen.getByText('opening-hours.txt').waitFor();
    await chosen.getByText('gift-wrap.md').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Upload 2 files' }).click();
    await page.getByRole('status').filter({ hasText: 'Added. The job below shows its progress.' }).waitFor();
    await job(page)
      .getByText(/^Added ·/)
      .waitFor();
    await jobStatus(page, 'Done');
    expect(await count(page, 'done').textContent()).toBe('2');

    const all = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/knowledge/sources`, h.app.ownerToken);
    expect(all.body.data.sources.find((s: { type: string }) => s.type === 'files')).toMatchObject({ documentCount: 2 });

    // Text, written in place: Markdown headings give its passages their place.
    await page.getByRole('tab', { name: 'Text' }).click();
    await page.getByLabel('Title', { exact: true }).fill('Loyalty card');
    await page
      .getByRole('textbox', { name: 'Text', exact: true })
      .fill('# Loyalty card\n\nEvery tenth coffee is free with the Acme card.');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await job(page)
      .getByText(/^Added ·/)
      .waitFor();
    await jobStatus(page, 'Done');
    await page.locator('.kn-docs').getByRole('button', { name: 'Open Loyalty card' }).waitFor();

    // A sitemap: every page it lists is read (the quick-start pages again, unchanged).
    site.set(
      '/sitemap.xml',
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[
        '/',
        '/delivery.html',
        '/returns.html',
      ]
        .map((p) => `<url><loc>${site.url}${p}</loc></url>`)
        .join('')}</urlset>`,
    );
    await page.getByRole('tab', { name: 'Sitemap' }).click();
    await page.getByLabel('Sitemap address').fill(`${site.url}/sitemap.xml`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await job(page)
      .getByText(/^Added ·/)
      .waitFor();
    await jobStatus(page, 'Done');
    expect(await count(page, 'failed').textContent()).toBe('0');
    expect(Number(await count(page, 'found').textContent())).toBeGreaterThanOrEqual(3);

    // Confluence: connect with a token, choose a space, import it.
    await page.getByRole('tab', { name: 'Confluence' }).click();
    await page.getByLabel('Confluence address').fill(confluence.url);
    await page.getByLabel('API token or personal access token').fill(confluence.datacenter.token);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('checkbox', { name: /Help centre/ }).check();
    await page.getByRole('button', { name: 'Import selected spaces' }).click();
    await job(page)
      .getByText(/^Added ·/)
      .waitFor();
    await jobStatus(page, 'Done');
    await page.locator('.kn-docs').getByRole('button', { name: 'Open Store pickup' }).waitFor();
    expect(problems).toEqual([]);
    await close();
  },
);

it(
  "answers a question a visitor asked that nobody could: the visitor's widget receives it, and it becomes a custom response",
  { timeout: 120_000 },
  async () => {
    // A real visitor, on the hosted chat page, asks what the knowledge does not say.
    const visitorContext = await h.browser.newContext();
    const visitor = await visitorContext.newPage();
    await visitor.goto(`${h.app.url}/chat/${chatbotId}`);
    const input = visitor.locator('[data-parley] textarea');
    await input.waitFor();
    const question = 'Do you accept bitcoin?';
    await input.fill(question);
    await input.press('Enter');
    await expect
      .poll(
        async () =>
          (await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/knowledge-gaps`, h.app.ownerToken)).body.data
            .knowledgeGaps.length,
        { timeout: 30_000 },
      )
      .toBe(1);

    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/gaps` });
    const gap = page.locator('.gap').filter({ hasText: question });
    await gap.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'gaps');

    const answer = 'Not yet: we take cards, bank transfer and PayPal.';
    await gap.getByLabel('Your answer').fill(answer);
    await gap.getByRole('button', { name: 'Send answer' }).click();
    await gap.getByRole('status').filter({ hasText: 'Saved as a custom response.' }).waitFor();
    await gap.getByText(answer).waitFor();

    // The visitor who asked sees the answer arrive in their widget.
    await visitor.locator('[data-parley]').getByText(answer).waitFor({ timeout: 30_000 });
    // It is a custom response now: the API lists it for that question.
    const responses = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/custom-responses`, h.app.ownerToken);
    expect(responses.body.data.customResponses).toEqual([expect.objectContaining({ question, answer })]);

    // Answered questions are listed apart, with the answer they give now.
    await page.getByRole('radio', { name: 'Answered', exact: true }).check();
    await page.locator('.gap').filter({ hasText: question }).getByText(answer).waitFor();
    await page.getByRole('radio', { name: 'Unanswered' }).check();
    await page.getByText('No unanswered questions. Well done.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await close();
    await visitorContext.close();
  },
);

it(
  'a member (in German) adds knowledge but deletes nothing, and reads the gaps without answering them',
  { timeout: 60_000 },
  async () => {
    const member = await h.addUser('member', [chatbotId]);
    const { page, problems, close } = await h.open({ user: member, path: `/console/${chatbotId}/knowledge` });
    await page.getByRole('heading', { name: 'Add knowledge' }).waitFor();
    // In German, chosen in the account menu: the page's own strings follow.
    await page.locator('.account-menu summary').click();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('de');
    await page.getByRole('heading', { name: 'Wissen hinzufügen' }).waitFor();
    await page.locator('.kn-docs li').first().waitFor();
    expect(await page.getByRole('button', { name: 'Löschen' }).count()).toBe(0);
    expect(await page.locator('.kn-docs').getByRole('checkbox').count()).toBe(0);
    await page.getByRole('button', { name: 'Neu einlesen' }).first().waitFor();

    await page.goto(`${h.app.url}/console/${chatbotId}/gaps`);
    await page.getByText('Ihre Rolle darf diese Fragen sehen, aber nicht beantworten.').waitFor();
    await page.getByRole('radio', { name: 'Beantwortet', exact: true }).check();
    await page.locator('.gap').first().waitFor();
    expect(await page.getByRole('textbox').count()).toBe(0);
    expect(problems).toEqual([]);
    await close();
  },
);

it(
  'adds a YouTube video and reads its captions as a document with timed passages; a video without captions says why',
  { timeout: 90_000 },
  async () => {
    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/knowledge` });
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
    await page.getByRole('tab', { name: 'YouTube' }).click();
    await page.getByText("Reads each video's title and captions").waitFor();
    await page.getByLabel('Addresses, one per line').fill('https://www.youtube.com/watch?v=acmeReturns');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Added. The job below shows its progress.' }).waitFor();
    await jobStatus(page, 'Done');
    expect(await count(page, 'done').textContent()).toBe('1');
    expect(await count(page, 'failed').textContent()).toBe('0');
    // What the server read: the watch page, then the caption track it lists.
    expect(youtube.requests).toEqual(['/watch?v=acmeReturns&hl=en', '/api/timedtext?v=acmeReturns&lang=en']);

    // The transcript is a document of its own, titled as the video, cut into timed passages.
    await page.getByLabel('Search by title or address').fill('returns work');
    const docs = page.locator('.kn-docs li');
    await expect.poll(() => docs.count()).toBe(1);
    await page.getByRole('button', { name: 'Open How returns work at Acme' }).click();
    const dialog = page.getByRole('dialog', { name: 'How returns work at Acme' });
    await dialog.getByText('What the chatbot learned, in 2 passages').waitFor();
    expect(await dialog.getByRole('link', { name: 'https://www.youtube.com/watch?v=acmeReturns' }).count()).toBe(1);
    const passages = dialog.locator('.kn-chunks li');
    expect(await passages.count()).toBe(2);
    expect(await passages.nth(0).locator('.kn-chunk-head').textContent()).toBe('Passage 1 · at 0:00');
    // Entities as YouTube double-encodes them come out as text.
    expect(await passages.nth(0).locator('.kn-chunk-text').textContent()).toContain("Hi, I'm Ada from Acme & Co.");
    expect(await passages.nth(1).locator('.kn-chunk-head').textContent()).toMatch(/^Passage 2 · at 1:[0-9]0$/);
    expect(await passages.nth(1).locator('.kn-chunk-text').textContent()).toContain('Exchanges are free of charge.');
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'knowledge-youtube');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // A video without captions: the job fails, and says why in words.
    await page.getByLabel('Addresses, one per line').fill('https://youtu.be/noCaptions0');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await jobStatus(page, 'Failed');
    await job(page).getByText('1 video could not be read').click();
    // The first video is still learned: the source is partly read, not in error.
    await page
      .locator('.kn-sources li')
      .filter({ hasText: 'YouTube videos' })
      .locator('.kn-badge')
      .filter({ hasText: /^Partly read$/ })
      .waitFor();
    await job(page)
      .getByText(
        'This video has no captions to read. Turn on captions for it on YouTube (automatic ones will do), then add it again.',
      )
      .first()
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'knowledge-youtube-failed', { fullPage: true });
    expect(problems).toEqual([]);
    await close();
  },
);
