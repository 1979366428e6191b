/**
 * The verification page's English text: the fallback, and the shape every language follows (one
 * file per language, the widget's languages; ./locales.ts picks one).
 */
export const en = {
  title: 'Sign in a device',
  signInHeading: 'Sign in to approve a device',
  signInIntro: 'A command-line tool or agent asked to act on your Parley account. Sign in first.',
  email: 'E-mail',
  password: 'Password',
  signIn: 'Sign in',
  signOut: 'Sign out',
  signedInAs: 'Signed in as {email}.',
  wrongPassword: 'The e-mail or the password is not right.',
  throttled: 'Too many tries. Try again in {minutes} min.',
  codeHeading: 'Enter the code shown on your device',
  codeLabel: 'Code',
  codeHint: '8 letters, for example BCDF-GHJK. Upper or lower case, with or without the dash.',
  continue: 'Continue',
  unknownCode: 'This code is not valid: it may be mistyped, expired or already used.',
  approveHeading: '{client} asks for access',
  compareCode: 'Check that this code matches the one on your device:',
  scopesHeading: 'It will be able to',
  standardAccess:
    'Standard access: read and write everything except billing, tokens, the account and members; delete nothing.',
  withheld: 'Your role does not allow these, so the token will not get them:',
  chatbotsHeading: 'Chatbots',
  allChatbots: 'Every chatbot of your account.',
  unknownChatbot: '{id}: not a chatbot of your account',
  cannotApprove: 'This request names chatbots that are not in your account, so it cannot be approved.',
  expires: 'The request expires at {time} UTC.',
  approve: 'Approve',
  deny: 'Deny',
  approvedHeading: 'Device approved',
  approved: 'You can return to your terminal. The token appears among your API tokens, where you can revoke it.',
  deniedHeading: 'Request denied',
  denied: 'The device gets no access. You can close this page.',
  alreadyAnswered: 'This request was already answered or has expired.',
  formExpired: 'This form expired or did not come from this page. Please try again.',
  tooMany: 'Too many requests. Wait a minute and try again.',
  failed: 'Something went wrong on our side. Please try again.',
  startOver: 'Start over',
  // The authorization page of the authorization code grant (/oauth/authorize).
  authorizeTitle: 'Allow an app',
  authorizeSignInIntro: '{client} asks to act on your Parley account. Sign in first.',
  returnsTo: 'After you answer, you go back to {host}.',
  unverifiedClient: 'The app chose its name itself: allow it only if you just started signing in from it.',
  requestInvalid: 'This sign-in link cannot be used.',
  allow: 'Allow',
  noScopeAllowed: 'Your role allows none of what it asks for, so it cannot be allowed.',
};

export type Strings = typeof en;
