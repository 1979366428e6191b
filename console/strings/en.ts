/** The shell's strings (sign-in, header, nav, errors). Pages keep theirs in pages/<id>/strings/. */
export const en = {
  product: 'Parley',
  skipToContent: 'Skip to content',
  signIn: {
    title: 'Sign in to Parley',
    lead: 'Use the e-mail and password your administrator set for you.',
    email: 'E-mail',
    password: 'Password',
    submit: 'Sign in',
    busy: 'Signing in…',
    wrong: 'That e-mail and password do not match. Check both and try again.',
    throttled: 'Too many attempts. Try again in {minutes} minutes.',
    ended: 'Your session ended. Sign in again to continue.',
    noPassword: 'No password yet? An operator sets one with: npm run cli -- users set-password --email you@example.com',
  },
  setup: {
    title: 'Welcome to Parley',
    lead: 'Choose the password you, the owner, will sign in with. This link works once.',
    password: 'New password',
    repeat: 'The same password again',
    hint: 'At least 10 characters.',
    submit: 'Save and sign in',
    busy: 'Saving…',
    mismatch: 'The two passwords differ.',
    invalid: 'This set-up link no longer works: it was used, or it expired. Sign in with your password instead.',
    toSignIn: 'Go to sign-in',
  },
  firstRun:
    'First run: nobody has a password yet. Open the set-up link the server printed when it started (npm start) to choose yours.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'No chatbots yet',
    account: 'Account',
    signedInAs: 'Signed in as {email}',
    role: { owner: 'Owner', admin: 'Admin', member: 'Member' },
    language: 'Language',
    signOut: 'Sign out',
    signOutEverywhere: 'Sign out everywhere',
  },
  nav: {
    label: 'Console',
    chatbotPages: 'This chatbot',
    accountPages: 'Account',
  },
  loading: 'Loading…',
  notFound: 'This page does not exist.',
  chatbotNotFound: 'This chatbot does not exist, or you have no access to it.',
  failed: 'Something went wrong: {message}',
  retry: 'Try again',
  backToChatbots: 'Go to your chatbots',
};

export type Strings = typeof en;
