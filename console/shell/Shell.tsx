/**
 * The signed-in console: the header (chatbot switcher, account menu), the nav of the pages the
 * user's role allows, and the page the URL names, loaded on first use.
 */
import { Suspense } from 'preact/compat';
import { useEffect, useErrorBoundary, useRef, useState } from 'preact/hooks';
import { patch } from '../api.js';
import { fill, LANGUAGE_NAMES, LANGUAGES, language, setLanguage, type Language } from '../i18n/index.js';
import { DEFAULT_CHATBOT_PAGE, PAGES, pageById, type Page } from '../registry.js';
import { href, navigate } from './router.js';
import { signOut } from './session.js';
import { can, chatbot, chatbots, lastChatbotId, loadMe, me, reloadChatbots, route, selectChatbot } from './state.js';
import { useShellStrings } from './strings.js';

const CHATBOTS_PAGE = 'chatbots';
/** Set once the first page has shown: later pages take the focus (the first leaves it where the browser put it). */
let navigated = false;

const visible = (p: Page) => !p.scope || can(p.scope);

/** Where /console (or /console/<chatbotId>) leads: the last chatbot's first page, else the chatbot list. */
function landing(): string | null {
  const { chatbotId, page } = route.value;
  if (page) return null;
  const list = chatbots.value;
  const last = lastChatbotId.value;
  const reachable = (id: string | null) => (id && list.some((c) => c.id === id) ? id : null);
  const id = reachable(chatbotId) ?? reachable(last) ?? list[0]?.id;
  const first = PAGES.find((p) => p.chatbot && visible(p))?.id ?? DEFAULT_CHATBOT_PAGE;
  if (id && first) return href(first, id);
  return pageById(CHATBOTS_PAGE) ? href(CHATBOTS_PAGE) : null;
}

export function Shell() {
  const t = useShellStrings();
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);

  const boot = () => {
    setFailed(null);
    // The scopes first: the chatbot list is read only when the role may read it.
    loadMe()
      .then(reloadChatbots)
      .then(
        () => setReady(true),
        (err) => setFailed(err instanceof Error ? err.message : String(err)),
      );
  };
  useEffect(boot, []);

  const to = ready ? landing() : null;
  useEffect(() => {
    if (to) navigate(to, { replace: true });
  }, [to]);

  if (failed)
    return (
      <main id="main" class="center">
        <p role="alert" class="error">
          {fill(t.failed, { message: failed })}
        </p>
        <button onClick={boot}>{t.retry}</button>
      </main>
    );
  if (!ready || !me.value) return <Loading />;

  const { chatbotId, page: pageId } = route.value;
  const page = pageById(pageId ?? undefined);
  return (
    <div class="app">
      <a class="skip" href="#main">
        {t.skipToContent}
      </a>
      <Header />
      <Nav />
      <main id="main" tabIndex={-1}>
        {!page || !visible(page) ? (
          pageId ? (
            <Missing text={t.notFound} />
          ) : (
            <Loading />
          )
        ) : page.chatbot && !chatbot.value ? (
          <Missing text={t.chatbotNotFound} />
        ) : (
          <PageFrame key={`${page.id}/${chatbotId}`} page={page} chatbotId={page.chatbot ? chatbotId : null} />
        )}
      </main>
    </div>
  );
}

/** A page in its own boundary: a failing page says so and leaves the shell working. */
function PageFrame(props: { page: Page; chatbotId: string | null }) {
  const t = useShellStrings();
  const [error, reset] = useErrorBoundary();
  useEffect(() => {
    document.title = `${label(props.page)} · ${chatbot.value?.title ?? t.product}`;
  });
  // A page opened from the nav or a link: a screen reader starts reading at the new page.
  useEffect(() => {
    if (navigated) document.getElementById('main')?.focus({ preventScroll: true });
    navigated = true;
  }, []);
  if (error)
    return (
      <div class="center">
        <p role="alert" class="error">
          {fill(t.failed, { message: error instanceof Error ? error.message : String(error) })}
        </p>
        <button onClick={reset}>{t.retry}</button>
      </div>
    );
  const { Component } = props.page;
  return (
    <Suspense fallback={<Loading />}>
      <Component chatbotId={props.chatbotId} />
    </Suspense>
  );
}

const label = (p: Page) => p.label[language.value] ?? p.label.en;

function Header() {
  const t = useShellStrings();
  const { page: pageId } = route.value;
  const current = pageById(pageId ?? undefined);
  /** The same page of the other chatbot; from an account page, the chatbot's first page. */
  const switchTo = (id: string) => {
    selectChatbot(id);
    const target = current?.chatbot ? current.id : PAGES.find((p) => p.chatbot && visible(p))?.id;
    if (target) navigate(href(target, id));
  };
  return (
    <header class="top">
      <a class="brand" href="/console">
        {t.product}
      </a>
      <label class="switcher">
        <span class="visually-hidden">{t.header.chatbot}</span>
        <select
          value={chatbot.value?.id ?? ''}
          disabled={!chatbots.value.length}
          onChange={(e) => switchTo((e.currentTarget as HTMLSelectElement).value)}
        >
          {!chatbot.value && (
            <option value="">{chatbots.value.length ? `${t.header.chatbot}…` : t.header.noChatbots}</option>
          )}
          {chatbots.value.map((c) => (
            <option key={c.id} value={c.id}>
              {c.title}
            </option>
          ))}
        </select>
      </label>
      <AccountMenu />
    </header>
  );
}

/** Who is signed in, their display name, the language, sign-out. Escape or a click elsewhere closes it. */
function AccountMenu() {
  const t = useShellStrings();
  const ref = useRef<HTMLDetailsElement>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const u = me.value!.user;
  useEffect(() => {
    const close = (e: Event) => {
      const menu = ref.current;
      if (!menu?.open) return;
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !menu.contains(e.target as Node)) {
        menu.open = false;
        if (e instanceof KeyboardEvent) menu.querySelector('summary')?.focus();
      }
    };
    document.addEventListener('keydown', close);
    document.addEventListener('click', close);
    return () => {
      document.removeEventListener('keydown', close);
      document.removeEventListener('click', close);
    };
  }, []);
  const saveName = async (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get('name') ?? '');
    try {
      await patch('/me', { name });
      await loadMe();
      setSaved(t.header.nameSaved);
    } catch (err) {
      setSaved(fill(t.failed, { message: err instanceof Error ? err.message : String(err) }));
    }
  };
  return (
    <details class="account-menu" ref={ref}>
      <summary>
        <span class="visually-hidden">{t.header.account}: </span>
        <span class="who">{u.name ?? u.email}</span>
      </summary>
      <div class="menu">
        <p class="muted small">
          {fill(t.header.signedInAs, { email: u.email })} · {t.header.role[u.role]}
        </p>
        {can('conversations:write') && (
          <form onSubmit={saveName}>
            <label class="field">
              <span>{t.header.name}</span>
              <input name="name" maxLength={80} defaultValue={u.name ?? ''} aria-describedby="name-hint" />
            </label>
            <p id="name-hint" class="muted small">
              {t.header.nameHint}
            </p>
            <button type="submit">{t.header.saveName}</button>
            <span class="small" role="status">
              {saved}
            </span>
          </form>
        )}
        <label class="field">
          <span>{t.header.language}</span>
          <select
            value={language.value}
            onChange={(e) => setLanguage((e.currentTarget as HTMLSelectElement).value as Language)}
          >
            {LANGUAGES.map((l) => (
              <option key={l} value={l} lang={l}>
                {LANGUAGE_NAMES[l]}
              </option>
            ))}
          </select>
        </label>
        <button onClick={() => signOut()}>{t.header.signOut}</button>
        <button onClick={() => signOut(true)}>{t.header.signOutEverywhere}</button>
      </div>
    </details>
  );
}

function Nav() {
  const t = useShellStrings();
  const { page: current } = route.value;
  const selected = chatbot.value?.id ?? null;
  // On a phone the nav is one scrolling row: the current page is kept in view.
  useEffect(() => {
    document.querySelector('.side a[aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current]);
  const chatbotPages = PAGES.filter((p) => p.chatbot && visible(p));
  const accountPages = PAGES.filter((p) => !p.chatbot && visible(p));
  const item = (p: Page, url: string) => (
    <li key={p.id}>
      <a href={url} aria-current={p.id === current ? 'page' : undefined}>
        {label(p)}
      </a>
    </li>
  );
  return (
    <nav class="side" aria-label={t.nav.label}>
      {selected && chatbotPages.length > 0 && (
        <>
          <h2 class="nav-heading">{t.nav.chatbotPages}</h2>
          <ul>{chatbotPages.map((p) => item(p, href(p.id, selected)))}</ul>
        </>
      )}
      {accountPages.length > 0 && (
        <>
          <h2 class="nav-heading">{t.nav.accountPages}</h2>
          <ul>{accountPages.map((p) => item(p, href(p.id)))}</ul>
        </>
      )}
    </nav>
  );
}

function Missing(props: { text: string }) {
  const t = useShellStrings();
  return (
    <div class="center">
      <p role="alert">{props.text}</p>
      {pageById(CHATBOTS_PAGE) && <a href={href(CHATBOTS_PAGE)}>{t.backToChatbots}</a>}
    </div>
  );
}

export function Loading() {
  const t = useShellStrings();
  return (
    <p class="loading" role="status">
      {t.loading}
    </p>
  );
}
