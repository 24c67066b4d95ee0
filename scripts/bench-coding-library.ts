/**
 * The coding-recall bench's library and messages: what a developer keeps in memory while working in two git
 * repositories (a billing service and a web shop), the user's own habits, a few hundred newer personal facts that
 * bury them, and the messages a developer types in those repositories: direct (a content word shared with the fact),
 * paraphrased (the same need in other words), in the other language (English and Chinese), and about nothing stored.
 * Every value a message needs is distinctive text, so a hit is read as that value appearing in the model's request.
 * The cues are what a model writing the fact would add for the requests that will need it.
 */

/** Which repository a project fact belongs to, or global. */
export type Home = 'billing' | 'shop' | 'global'

/** One fact the developer keeps. */
export interface LibraryFact {
  /** The bench's own name for it. */
  readonly key: string
  readonly home: Home
  readonly subject: string
  readonly property: string
  readonly value: string
  /** What the user said (the quote of an explicit_user write). */
  readonly said: string
  /** Phrases a later request needing this fact would use, in English and Chinese. */
  readonly cues: readonly string[]
}

/** How a message relates to the fact it needs. */
export type MessageKind = 'direct' | 'paraphrase' | 'other-language' | 'nothing stored'

/** One message a developer sends, the first of a fresh session in a repository. */
export interface CodingMessage {
  readonly text: string
  readonly repo: 'billing' | 'shop'
  readonly kind: MessageKind
  readonly language: 'en' | 'zh'
  /** The fact it needs; null for a message about nothing stored. */
  readonly needs: string | null
  /**
   * Written after the lexicon and the weights were tuned on the other messages, and never tuned on: the bench reports
   * them on their own, as the figure to trust.
   */
  readonly heldOut?: true
}

/** The repositories: folder name and origin. */
export const REPOSITORIES = {
  billing: { folder: 'billing-service', origin: 'git@github.com:acme/billing-service.git' },
  shop: { folder: 'shop-web', origin: 'https://github.com/acme/shop-web.git' },
} as const

/** The facts a developer keeps: each repository's own (written with scope "project" inside it) and the user's. */
export const CODING_FACTS: readonly LibraryFact[] = [
  {
    key: 'billing.test',
    home: 'billing',
    subject: 'billing-service',
    property: 'test command',
    value: 'npm run test:unit -- --runInBand',
    said: 'For this repo the test command is npm run test:unit -- --runInBand, remember that.',
    cues: ['run the tests', 'test suite', 'check nothing is broken', 'before pushing', '跑测试', '单元测试'],
  },
  {
    key: 'billing.port',
    home: 'billing',
    subject: 'billing-service',
    property: 'dev server port',
    value: '4100',
    said: 'The billing dev server listens on port 4100.',
    cues: ['local server', 'localhost address', 'start the server', 'reach the backend', '本地端口', '启动服务'],
  },
  {
    key: 'billing.db',
    home: 'billing',
    subject: 'billing-service',
    property: 'local database',
    value: 'Postgres 16 in Docker on localhost:5433, database billing_dev',
    said: 'Our local database is Postgres 16 in Docker on localhost:5433, database billing_dev.',
    cues: ['psql', 'connect to the db', 'list tables', 'which postgres', '本地数据库', '连数据库'],
  },
  {
    key: 'billing.staging',
    home: 'billing',
    subject: 'billing-service',
    property: 'staging deploy',
    value: 'make deploy ENV=staging (needs the VPN)',
    said: 'Staging deploys go through make deploy ENV=staging (needs the VPN).',
    cues: ['ship to staging', 'pre-production', 'release to test env', '预发', '发布到预发'],
  },
  {
    key: 'billing.migration',
    home: 'billing',
    subject: 'billing-service',
    property: 'migration tool',
    value: 'node-pg-migrate, files in db/migrations, run with npm run migrate up',
    said: 'We use node-pg-migrate, files in db/migrations, run with npm run migrate up.',
    cues: ['schema change', 'create a table', 'add a column', '数据库迁移', '建表'],
  },
  {
    key: 'billing.errors',
    home: 'billing',
    subject: 'billing-service',
    property: 'error handling',
    value: 'throw BillingError with a code from src/errors.ts; never return null on failure',
    said: 'Error handling here: throw BillingError with a code from src/errors.ts; never return null on failure.',
    cues: ['exceptions', 'how to signal failure', 'error codes', '错误处理', '抛异常'],
  },
  {
    key: 'billing.owner',
    home: 'billing',
    subject: 'billing-service',
    property: 'code owner',
    value: 'Dana Whitfield (@dana-w)',
    said: 'The code owner of billing-service is Dana Whitfield (@dana-w).',
    cues: ['who reviews', 'maintainer', 'who to ask', '负责人', '找谁审'],
  },
  {
    key: 'billing.branch',
    home: 'billing',
    subject: 'billing-service',
    property: 'branch naming',
    value: 'fix/<ticket>-short-name or feat/<ticket>-short-name off main; never push to main directly',
    said: 'Branch naming: fix/<ticket>-short-name or feat/<ticket>-short-name off main; never push to main directly.',
    cues: ['new branch', 'git checkout -b', 'branch name', '新分支', '分支规范'],
  },
  {
    key: 'billing.log',
    home: 'billing',
    subject: 'billing-service',
    property: 'log level',
    value: 'debug locally, info in production, set with LOG_LEVEL',
    said: 'Log level is debug locally, info in production, set with LOG_LEVEL.',
    cues: ['verbose output', 'logging', 'see what it does', '日志级别', '调试日志'],
  },
  {
    key: 'billing.node',
    home: 'billing',
    subject: 'billing-service',
    property: 'Node version',
    value: '22.12, pinned in .nvmrc',
    said: 'This service runs Node 22.12, pinned in .nvmrc.',
    cues: ['nvm use', 'runtime version', 'which node', 'Node 版本', '运行时版本'],
  },
  {
    key: 'billing.callback',
    home: 'billing',
    subject: 'billing-service',
    property: '支付回调地址',
    value: 'https://billing.acme.test/api/payments/callback',
    said: '支付回调地址是 https://billing.acme.test/api/payments/callback',
    cues: ['payment callback URL', 'webhook endpoint', 'payment notification', '回调', '支付通知'],
  },
  {
    key: 'billing.queue',
    home: 'billing',
    subject: 'billing-service',
    property: 'job queue',
    value: 'BullMQ on Redis 7; refund jobs in src/jobs/refunds.ts',
    said: 'The job queue is BullMQ on Redis 7; refund jobs in src/jobs/refunds.ts.',
    cues: ['background jobs', 'async worker', 'retry later', '任务队列', '异步任务'],
  },
  {
    key: 'shop.test',
    home: 'shop',
    subject: 'shop-web',
    property: 'test command',
    value: 'pnpm vitest run',
    said: 'In shop-web the test command is pnpm vitest run.',
    cues: ['run the tests', 'unit tests', 'test suite', 'before merging', '跑测试', '单测'],
  },
  {
    key: 'shop.port',
    home: 'shop',
    subject: 'shop-web',
    property: 'dev server port',
    value: '5173 (Vite)',
    said: 'The shop-web dev server port is 5173 (Vite).',
    cues: ['local server', 'open the app locally', 'localhost', '本地端口', '启动开发服务器'],
  },
  {
    key: 'shop.state',
    home: 'shop',
    subject: 'shop-web',
    property: 'state management',
    value: 'Zustand stores under src/state; no Redux',
    said: 'State management: Zustand stores under src/state; no Redux.',
    cues: ['where state lives', 'global store', 'cart state', '状态管理', '全局状态'],
  },
  {
    key: 'shop.staging',
    home: 'shop',
    subject: 'shop-web',
    property: 'staging deploy',
    value: 'Vercel preview deployment, promoted with vercel promote',
    said: 'Staging is a Vercel preview deployment, promoted with vercel promote.',
    cues: ['ship to staging', 'preview link', 'pre-production', '预发', '发预览'],
  },
  {
    key: 'shop.build',
    home: 'shop',
    subject: 'shop-web',
    property: 'build command',
    value: 'pnpm build (output in dist/)',
    said: 'The build command is pnpm build (output in dist/).',
    cues: ['bundle the app', 'production build', 'compile', '打包', '构建'],
  },
  {
    key: 'shop.owner',
    home: 'shop',
    subject: 'shop-web',
    property: 'code owner',
    value: 'Liu Yang (刘洋)',
    said: 'The code owner of shop-web is Liu Yang (刘洋).',
    cues: ['who reviews', 'maintainer', 'approve changes', '负责人', '找谁审'],
  },
  {
    key: 'shop.components',
    home: 'shop',
    subject: 'shop-web',
    property: '组件规范',
    value: '函数组件加 hooks，样式用 CSS Modules，不用 styled-components',
    said: '组件规范：函数组件加 hooks，样式用 CSS Modules，不用 styled-components',
    cues: ['component conventions', 'how to write a component', 'styling', '组件怎么写', '写组件'],
  },
  {
    key: 'shop.lint',
    home: 'shop',
    subject: 'shop-web',
    property: 'lint command',
    value: 'pnpm lint (ESLint with Prettier)',
    said: 'The lint command is pnpm lint (ESLint with Prettier).',
    cues: ['check formatting', 'code style', 'fix lint errors', '代码检查', '格式化'],
  },
  {
    key: 'shop.api',
    home: 'shop',
    subject: 'shop-web',
    property: 'API base URL in development',
    value: 'http://localhost:8787/api (the MSW mock server)',
    said: 'The API base URL in development is http://localhost:8787/api (the MSW mock server).',
    cues: ['backend URL', 'API endpoint', 'mock server', '接口地址', '后端地址'],
  },
  {
    key: 'user.editor',
    home: 'global',
    subject: 'user',
    property: 'editor',
    value: 'Neovim with LazyVim',
    said: 'My editor is Neovim with LazyVim.',
    cues: ['open the file', 'my editor', 'vim', '编辑器', '打开文件'],
  },
  {
    key: 'user.commit',
    home: 'global',
    subject: 'user',
    property: 'commit style',
    value: 'Conventional Commits, imperative mood, in English',
    said: 'My commit style: Conventional Commits, imperative mood, in English.',
    cues: ['commit message', 'how to write commits', 'git commit', '提交信息', '提交规范'],
  },
  {
    key: 'user.pm',
    home: 'global',
    subject: 'user',
    property: 'package manager',
    value: 'pnpm for new projects',
    said: 'My package manager is pnpm for new projects.',
    cues: ['install dependencies', 'add a package', 'npm or yarn', '包管理器', '装依赖'],
  },
  {
    key: 'user.shell',
    home: 'global',
    subject: 'user',
    property: 'shell',
    value: 'zsh with the starship prompt',
    said: 'My shell is zsh with the starship prompt.',
    cues: ['terminal', 'shell config', 'zshrc', '终端', '命令行'],
  },
  {
    key: 'user.tz',
    home: 'global',
    subject: 'user',
    property: 'time zone',
    value: 'Asia/Shanghai (UTC+8)',
    said: 'My time zone is Asia/Shanghai (UTC+8).',
    cues: ['my local time', 'what time is it for me', 'schedule at', '时区', '几点'],
  },
  {
    key: 'user.language',
    home: 'global',
    subject: 'user',
    property: 'answer language',
    value: '用中文回答，代码注释用英文',
    said: '以后用中文回答，代码注释用英文',
    cues: ['reply in Chinese', 'which language to answer in', 'comments in English', '用什么语言回答', '中文回答'],
  },
  {
    key: 'user.review',
    home: 'global',
    subject: 'user',
    property: 'review preference',
    value: 'small PRs under 400 lines, one topic each',
    said: 'My review preference: small PRs under 400 lines, one topic each.',
    cues: ['pull request size', 'code review', 'how big a PR', '代码评审', '提 PR'],
  },
]

/** Messages kept out of tuning (see CodingMessage.heldOut). */
const HELD_OUT: readonly Omit<CodingMessage, 'heldOut'>[] = [
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.test',
    text: 'The unit tests are red on my branch, run them again.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.port',
    text: 'Which port is the billing service on locally?',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.db',
    text: 'Open a psql shell on the local database.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.staging',
    text: "What's the staging deploy command again?",
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.migration',
    text: 'Write a migration that adds an index on invoices.customer_id.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.log',
    text: 'Set the log level to debug for this run.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.node',
    text: 'Which Node version should nvm switch to here?',
  },
  { repo: 'billing', kind: 'direct', language: 'zh', needs: 'billing.callback', text: '把支付回调地址换成沙箱的' },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'shop.test',
    text: 'Run the test command for the checkout page.',
  },
  { repo: 'shop', kind: 'direct', language: 'en', needs: 'shop.build', text: 'Build the project for production.' },
  { repo: 'shop', kind: 'direct', language: 'en', needs: 'shop.lint', text: 'Fix the lint errors in the cart folder.' },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'shop.state',
    text: 'How do we manage state for the wishlist?',
  },
  { repo: 'shop', kind: 'direct', language: 'en', needs: 'shop.owner', text: 'Who owns the code in this repo?' },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'user.commit',
    text: 'Commit this with a message in my usual commit style.',
  },
  { repo: 'billing', kind: 'direct', language: 'en', needs: 'user.editor', text: "What's my preferred editor?" },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.test',
    text: "Check my changes didn't break anything.",
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.staging',
    text: 'Push this build to the preprod box.',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.db',
    text: 'I need to talk to postgres locally, what are the connection details?',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.owner',
    text: 'Who do I ping for approval on this service?',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.queue',
    text: 'Where do background refund jobs get processed?',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.errors',
    text: 'Should the handler return null or raise when the card is declined?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.build',
    text: 'Make a production bundle and tell me the output folder.',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.port',
    text: 'Where can I open the app in my browser while developing?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.state',
    text: 'Which store library do we use for client state?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.staging',
    text: 'Share a pre-prod link for the new banner.',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.api',
    text: 'What backend URL does the frontend call during dev?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'user.pm',
    text: 'Add a dependency with the tool I prefer.',
  },
  { repo: 'shop', kind: 'paraphrase', language: 'en', needs: 'user.tz', text: 'Convert 3pm UTC to my local time.' },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'billing.test', text: '帮我把测试都跑一遍' },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'billing.staging', text: '预发环境怎么发布？' },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.db',
    text: '本地的 Postgres 连接信息是什么？',
  },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.migration',
    text: '写一个迁移脚本，给发票表加个字段',
  },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.errors',
    text: '这个服务的错误处理有什么约定？',
  },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'billing.queue', text: '后台任务队列用的是什么？' },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'en',
    needs: 'billing.callback',
    text: 'Where do payment notifications get posted to?',
  },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.test', text: '前端的单元测试怎么跑？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.staging', text: '怎么发一个预发链接给产品看？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.lint', text: '代码格式检查用什么命令？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.owner', text: '这个前端项目谁负责？' },
  {
    repo: 'shop',
    kind: 'other-language',
    language: 'en',
    needs: 'shop.components',
    text: "What's our rule for writing React components here?",
  },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'user.pm', text: '我习惯用什么包管理器？' },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'user.shell', text: '我的终端用的是什么 shell？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'user.review', text: '代码评审我喜欢什么样的 PR？' },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'en',
    needs: 'user.language',
    text: 'What language do I want answers in?',
  },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'How do I write a binary search in Go?',
  },
  {
    repo: 'shop',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: "What's the difference between a process and a thread?",
  },
  { repo: 'billing', kind: 'nothing stored', language: 'en', needs: null, text: 'Explain OAuth 2.0 in simple terms.' },
  { repo: 'shop', kind: 'nothing stored', language: 'en', needs: null, text: 'Give me three names for a coffee shop.' },
  { repo: 'billing', kind: 'nothing stored', language: 'en', needs: null, text: 'What is the speed of light?' },
  { repo: 'shop', kind: 'nothing stored', language: 'zh', needs: null, text: '怎么用 CSS 画一个三角形？' },
  { repo: 'billing', kind: 'nothing stored', language: 'zh', needs: null, text: '解释一下 TCP 三次握手' },
  { repo: 'shop', kind: 'nothing stored', language: 'zh', needs: null, text: '推荐几本科幻小说' },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'How many days are there in a leap year?',
  },
  { repo: 'shop', kind: 'nothing stored', language: 'en', needs: null, text: 'What does HTTP status 502 mean?' },
]

/** The messages a developer types, each needing one of the facts above or none: the tuning set, then the held-out one. */
export const CODING_MESSAGES: readonly CodingMessage[] = [
  // Direct: a content word of the fact is in the message.
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.test',
    text: 'Run the test suite and tell me what fails.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.db',
    text: 'Connect to the local database and list the tables.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.migration',
    text: 'Add a new migration that creates the refunds table.',
  },
  { repo: 'billing', kind: 'direct', language: 'en', needs: 'billing.staging', text: 'Deploy this branch to staging.' },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.port',
    text: 'Start the dev server and check the health endpoint.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.owner',
    text: 'Who is the code owner I should ask for a review?',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.branch',
    text: 'Create a branch for the refund rounding fix.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.log',
    text: 'Raise the log level so I can see what the refund job does.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.node',
    text: 'Which Node version does this project use?',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.errors',
    text: 'How should I do error handling in the new refund endpoint?',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'billing.queue',
    text: 'Add a job to the queue that retries failed refunds.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'zh',
    needs: 'billing.callback',
    text: '支付回调地址是哪个？我要配沙箱。',
  },
  { repo: 'shop', kind: 'direct', language: 'en', needs: 'shop.test', text: 'Run the tests for the cart component.' },
  { repo: 'shop', kind: 'direct', language: 'en', needs: 'shop.port', text: 'What port does the dev server use?' },
  { repo: 'shop', kind: 'direct', language: 'en', needs: 'shop.state', text: 'Where should the cart state live?' },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'shop.staging',
    text: 'Deploy the preview to staging for the design review.',
  },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'shop.build',
    text: 'Run the build and check the bundle size.',
  },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'shop.lint',
    text: 'Run lint on the checkout page and fix what you can.',
  },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'shop.api',
    text: 'What is the API base URL during development?',
  },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'shop.owner',
    text: 'Who is the code owner of this frontend?',
  },
  { repo: 'shop', kind: 'direct', language: 'zh', needs: 'shop.components', text: '按组件规范写一个商品卡片组件。' },
  { repo: 'billing', kind: 'direct', language: 'en', needs: 'user.editor', text: 'Open src/app.ts in my editor.' },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'user.commit',
    text: 'Write the commit message for these changes.',
  },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'user.pm',
    text: 'Install the dependencies with my package manager.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'user.shell',
    text: 'Add an alias for git status to my shell config.',
  },
  {
    repo: 'billing',
    kind: 'direct',
    language: 'en',
    needs: 'user.tz',
    text: 'Schedule the nightly report for 9am in my time zone.',
  },
  {
    repo: 'shop',
    kind: 'direct',
    language: 'en',
    needs: 'user.review',
    text: 'Split this into PRs the way I like them for review.',
  },
  { repo: 'shop', kind: 'direct', language: 'zh', needs: 'user.language', text: '你回答我的时候要用中文回答吗？' },

  // Paraphrase: the same need, other words, the fact's own language.
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.test',
    text: 'Make sure nothing is broken before I push.',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.staging',
    text: 'Ship it to the pre-production environment.',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.db',
    text: 'Which Postgres instance do I point psql at?',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.migration',
    text: 'I need a schema change: add a column to invoices.',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.port',
    text: 'On which localhost address can I reach the backend?',
  },
  { repo: 'billing', kind: 'paraphrase', language: 'en', needs: 'billing.owner', text: 'Who maintains this repo?' },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.log',
    text: 'I want more verbose output from the service while I debug.',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'billing.errors',
    text: 'How do we signal failures in this codebase: exceptions or null?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.test',
    text: 'Check that everything still passes before I merge.',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.port',
    text: 'Where does the frontend listen locally?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.state',
    text: 'Which library holds the global store here?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.staging',
    text: 'Put this on pre-production so QA can try it.',
  },
  { repo: 'shop', kind: 'paraphrase', language: 'en', needs: 'shop.build', text: 'Bundle the app for production.' },
  { repo: 'shop', kind: 'paraphrase', language: 'en', needs: 'shop.lint', text: 'Check the code style of my changes.' },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'shop.owner',
    text: 'Who should approve changes to this frontend?',
  },
  { repo: 'billing', kind: 'paraphrase', language: 'en', needs: 'user.editor', text: 'Open this file in vim for me.' },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'user.commit',
    text: 'How should I phrase the git message for this change?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'user.pm',
    text: 'Should I use npm or yarn to add this library?',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'en',
    needs: 'user.tz',
    text: 'What is the local time for me right now?',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'en',
    needs: 'user.review',
    text: 'How big should my pull requests be?',
  },
  {
    repo: 'billing',
    kind: 'paraphrase',
    language: 'zh',
    needs: 'billing.callback',
    text: '支付成功以后，通知会打到哪个地址？',
  },
  {
    repo: 'shop',
    kind: 'paraphrase',
    language: 'zh',
    needs: 'shop.components',
    text: '新页面的界面代码应该按什么约定来写？',
  },
  { repo: 'shop', kind: 'paraphrase', language: 'zh', needs: 'user.language', text: '以后跟我说话用哪种语言？' },

  // The other language: a Chinese message for an English fact, an English one for a Chinese fact.
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'billing.test', text: '帮我跑一下测试' },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'user.commit', text: '提交信息应该怎么写？' },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.staging',
    text: '把这个分支部署到预发环境',
  },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.db',
    text: '连一下本地数据库，看看有哪些表',
  },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.branch',
    text: '新建一个分支来修复退款的 bug',
  },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.migration',
    text: '加一个数据库迁移，建一张退款表',
  },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'zh',
    needs: 'billing.node',
    text: '这个项目的运行时版本是多少？',
  },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'billing.port', text: '开发服务器跑在哪个端口？' },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'billing.owner', text: '这个代码的负责人是谁？' },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'billing.log', text: '日志级别怎么调高？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.test', text: '帮我跑一下单测' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.port', text: '本地开发服务器的端口是多少？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.state', text: '购物车的状态放在哪里管理？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'shop.build', text: '打包一下，看看产物有多大' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'user.editor', text: '用我的编辑器打开这个文件' },
  { repo: 'billing', kind: 'other-language', language: 'zh', needs: 'user.pm', text: '装依赖用哪个包管理器？' },
  { repo: 'shop', kind: 'other-language', language: 'zh', needs: 'user.tz', text: '我这边的时区是哪个？' },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'en',
    needs: 'billing.callback',
    text: 'What is the payment callback URL?',
  },
  {
    repo: 'shop',
    kind: 'other-language',
    language: 'en',
    needs: 'shop.components',
    text: 'How do we write components in this repo?',
  },
  {
    repo: 'billing',
    kind: 'other-language',
    language: 'en',
    needs: 'user.language',
    text: 'Which language should you reply to me in?',
  },

  // About nothing stored.
  { repo: 'billing', kind: 'nothing stored', language: 'en', needs: null, text: 'How do I center a div with flexbox?' },
  {
    repo: 'shop',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'Explain the difference between TCP and UDP.',
  },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'Write a regex that matches an ISO date.',
  },
  { repo: 'shop', kind: 'nothing stored', language: 'en', needs: null, text: 'What does git rebase --onto do?' },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'Explain what a closure is in JavaScript.',
  },
  {
    repo: 'shop',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'Summarise the plot of Hamlet in three sentences.',
  },
  { repo: 'billing', kind: 'nothing stored', language: 'en', needs: null, text: 'Convert 72 Fahrenheit to Celsius.' },
  { repo: 'shop', kind: 'nothing stored', language: 'en', needs: null, text: 'Write me a haiku about autumn leaves.' },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'How do I read a CSV file in Python and skip the header?',
  },
  { repo: 'shop', kind: 'nothing stored', language: 'en', needs: null, text: 'What is a monad, briefly?' },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'Recommend a good book on distributed systems.',
  },
  {
    repo: 'shop',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'Why is 0.1 + 0.2 not equal to 0.3 in floating point?',
  },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'What is the time complexity of quicksort?',
  },
  { repo: 'shop', kind: 'nothing stored', language: 'en', needs: null, text: 'Explain the borrow checker in Rust.' },
  { repo: 'billing', kind: 'nothing stored', language: 'en', needs: null, text: 'What is the capital of Australia?' },
  { repo: 'shop', kind: 'nothing stored', language: 'en', needs: null, text: 'Translate "good morning" into French.' },
  {
    repo: 'billing',
    kind: 'nothing stored',
    language: 'en',
    needs: null,
    text: 'What port does Redis listen on by default?',
  },
  { repo: 'billing', kind: 'nothing stored', language: 'zh', needs: null, text: '今天天气怎么样？' },
  { repo: 'shop', kind: 'nothing stored', language: 'zh', needs: null, text: '帮我写一个快速排序的例子' },
  { repo: 'billing', kind: 'nothing stored', language: 'zh', needs: null, text: '解释一下什么是闭包' },
  { repo: 'shop', kind: 'nothing stored', language: 'zh', needs: null, text: '用一句话解释什么是 CAP 定理' },
  { repo: 'billing', kind: 'nothing stored', language: 'zh', needs: null, text: '给我讲个程序员笑话' },
  { repo: 'shop', kind: 'nothing stored', language: 'zh', needs: null, text: '怎么在 Python 里反转一个列表？' },
  { repo: 'billing', kind: 'nothing stored', language: 'zh', needs: null, text: 'HTTP 状态码 418 是什么意思？' },
  ...HELD_OUT.map((message) => ({ ...message, heldOut: true as const })),
]

const PEOPLE_EN = ['Mia', 'Tom', 'Sarah Chen', 'Marcus', 'Grandma Rose', 'Priya', 'Leo', 'Hannah', 'Diego', 'Aunt Jo']
const PEOPLE_ZH = ['妈妈', '爸爸', '李明', '王芳', '小雨', '张伟', '陈静', '老周']
const PERSON_PROPERTIES: readonly (readonly [string, readonly string[]])[] = [
  ['birthday', ['12 March', '3 July', '28 October', '9 January', '17 May', '30 August', '21 November', '6 February']],
  [
    'favourite food',
    ['ramen', 'dumplings', 'lasagne', 'green curry', 'tacos al pastor', 'mapo tofu', 'fish and chips', 'pho'],
  ],
  [
    'hobby',
    [
      'bouldering',
      'watercolour painting',
      'chess',
      'sourdough baking',
      'birdwatching',
      'ceramics',
      'trail running',
      'knitting',
    ],
  ],
  ['lives in', ['Hangzhou', 'Lisbon', 'Chengdu', 'Toronto', 'Melbourne', 'Kyoto', 'Berlin', 'Suzhou']],
  ['allergy', ['peanuts', 'shellfish', 'cat hair', 'pollen in spring', 'penicillin', 'none known']],
  [
    'gift idea',
    ['a fountain pen', 'a board game', 'concert tickets', 'a cookbook', 'a plant', 'noise-cancelling headphones'],
  ],
  ['coffee order', ['flat white', 'oat latte', 'double espresso', 'iced americano', 'cortado']],
  ['driving test', ['passed on the second try', 'booked for next spring', 'passed last autumn']],
  ['music lessons', ['piano on Saturdays at 10', 'violin with Ms. Ortega', 'guitar, grade 3']],
  ['school', ['Riverside Primary', 'Lakeview High', 'No. 2 Middle School']],
]
const PERSON_PROPERTIES_ZH: readonly (readonly [string, readonly string[]])[] = [
  ['生日', ['三月十二日', '七月三日', '十月二十八日', '一月九日', '五月十七日']],
  ['爱吃的菜', ['红烧肉', '清蒸鲈鱼', '酸菜鱼', '小笼包', '麻婆豆腐']],
  ['爱好', ['广场舞', '钓鱼', '书法', '养花', '打羽毛球']],
  ['住在', ['杭州西湖区', '上海浦东', '成都高新区', '南京鼓楼']],
  ['电话习惯', ['晚上八点后打', '周末上午方便', '只发微信语音']],
  ['体检', ['每年十月', '下个月预约了', '上周做完了']],
]
const THINGS: readonly (readonly [string, string, readonly string[]])[] = [
  ['car', 'next service', ['due in March at 60,000 km', 'booked for 14 June', 'done last week']],
  ['car', 'insurance renewal', ['every September with Ping An', 'paid until next April']],
  ['car', 'tyre pressure', ['2.4 bar front, 2.6 rear']],
  ['apartment', 'building', ['number 12, third floor, lift on the left']],
  ['apartment', 'rent due', ['the 5th of each month']],
  ['apartment', 'wifi router', ['in the hall cupboard, reboot it when slow']],
  ['bike', 'lock code', ['kept in the notes app']],
  ['bike', 'frame size', ['54 cm road frame']],
  ['laptop', 'model', ['a 14-inch ThinkPad X1 Carbon']],
  ['phone', 'plan', ['unlimited data, renews on the 20th']],
  ['gym', 'membership', ['Tuesday and Thursday evenings, renews in May']],
  ['dentist', 'next appointment', ['the second week of January']],
  ['bank', 'branch', ["the Jing'an branch on Nanjing Road"]],
  ['ferry', 'port', ['departs from Zhoushan port at 7:40']],
  ['library card', 'renewal', ['every two years at the district library']],
  ['passport', 'expiry', ['renew before the summer trip']],
  ['Tokyo trip', 'hotel', ['near Ueno station, check-in at 3 pm']],
  ['Tokyo trip', 'flight', ['morning flight on the 12th, window seat']],
  ['book club', 'current book', ['The Remains of the Day']],
  ['book club', 'meeting', ['first Sunday of the month at the tea house']],
  ['running', 'weekly goal', ['30 km, long run on Sundays']],
  ['running', 'race', ['half marathon in Suzhou in April']],
  ['piano', 'practice', ['20 minutes after dinner, scales first']],
  ['cooking', 'signature dish', ['braised pork belly with star anise']],
  ['garden', 'tomatoes', ['water every other day, stake them in June']],
  ['cat', 'vet', ['Dr. Lin at the Pet Care Centre, vaccines in October']],
  ['cat', 'food', ['grain-free salmon kibble, half a cup twice a day']],
  ['podcast', 'favourite', ['a history podcast about the Song dynasty']],
  ['newsletter', 'reading habit', ['Saturday mornings with coffee']],
  ['tax return', 'deadline', ['the end of June']],
]
const THINGS_ZH: readonly (readonly [string, string, readonly string[]])[] = [
  ['小区', '快递柜', ['在三号楼门口']],
  ['小区', '物业电话', ['贴在电梯里的那张通知上']],
  ['周末', '安排', ['周六上午游泳，周日去看爸妈']],
  ['家里', '水费', ['每两个月交一次']],
  ['菜市场', '常去的摊位', ['东门进去第三家卖豆腐的']],
  ['健身', '教练', ['周三晚上上私教课']],
  ['春节', '回家车票', ['腊月二十六的高铁']],
  ['女儿', '兴趣班', ['周六下午的美术课']],
  ['阳台', '植物', ['两盆绿萝和一盆茉莉']],
  ['医保卡', '年度额度', ['还剩一千二']],
]

/**
 * The newer personal facts that fill the directory: people, things and plans, in English and Chinese, global.
 * Some share words with the developer's vocabulary (a driving test, a bank branch, a ferry port), as a real
 * library's do.
 * @param count - how many (at least 300 in the bench).
 * @returns distinct facts, deterministic.
 */
export function personalFacts(count: number): LibraryFact[] {
  const out: LibraryFact[] = []
  const seen = new Set<string>()
  const add = (subject: string, property: string, value: string, zh: boolean): void => {
    const slot = `${subject}\u0000${property}`
    if (seen.has(slot) || out.length >= count) return
    seen.add(slot)
    const said = zh
      ? `记一下：${subject}的${property}是${value}`
      : `Remember that ${subject}'s ${property} is ${value}.`
    out.push({ key: `personal.${out.length}`, home: 'global', subject, property, value, said, cues: [] })
  }
  for (let round = 0; out.length < count && round < 40; round += 1) {
    for (const [i, person] of PEOPLE_EN.entries()) {
      const [property, values] = PERSON_PROPERTIES[(i + round) % PERSON_PROPERTIES.length] ?? ['note', ['']]
      add(person, property, values[(i * 3 + round) % values.length] ?? '', false)
    }
    for (const [i, person] of PEOPLE_ZH.entries()) {
      const [property, values] = PERSON_PROPERTIES_ZH[(i + round) % PERSON_PROPERTIES_ZH.length] ?? ['备注', ['']]
      add(person, property, values[(i * 2 + round) % values.length] ?? '', true)
    }
    for (const [i, [subject, property, values]] of THINGS.entries()) {
      const suffix = round === 0 ? '' : ` (${['spring', 'summer', 'autumn', 'winter'][round % 4]} ${2020 + round})`
      add(subject, round === 0 ? property : `${property}${suffix}`, values[(i + round) % values.length] ?? '', false)
    }
    for (const [i, [subject, property, values]] of THINGS_ZH.entries()) {
      add(
        subject,
        round === 0 ? property : `${property}（${2020 + round}年）`,
        values[(i + round) % values.length] ?? '',
        true,
      )
    }
  }
  return out
}
