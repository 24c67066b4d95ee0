/**
 * The concept lexicon for software work, as data: each line one concept, its English members (words, phrases,
 * abbreviations, the tools of its kind) and its Chinese members, separated by `|`. Members are matched as the
 * full-text index holds them (lexicon.ts), so inflections and English function words do not matter ("run the tests"
 * is "run tests"). A member belongs in a concept only when a developer uses it for that concept in a message or a
 * fact; a word with several everyday senses ("file", "library", "command", "service" alone) is left out, since it would
 * bridge every fact that happens to hold it. Bump {@link LEXICON_VERSION} with every change; tests/lexicon.spec.ts
 * checks every concept in both directions.
 */

/** The version of the data below: the date of the last change and a counter. */
export const LEXICON_VERSION = '2026-12-04.5'

/** [id, English members, Chinese members] */
type Row = readonly [string, string, string]

const ROWS: readonly Row[] = [
  // Tests
  [
    'test',
    'test|tests|testing|test suite|unit test|unit tests|spec|specs|test case|test cases|run the tests|test runner|jest|vitest|mocha|pytest|go test|cargo test|junit|nothing is broken|still passes',
    '测试|单测|单元测试|跑测试|测试用例|用例|测一下|自测|跑单测',
  ],
  [
    'e2e-test',
    'end-to-end test|e2e|e2e tests|integration test|integration tests|playwright|cypress|selenium',
    '端到端测试|集成测试|联调|自动化测试',
  ],
  ['coverage', 'coverage|code coverage|test coverage|istanbul|c8', '覆盖率|测试覆盖率|代码覆盖率'],
  [
    'flaky-test',
    'flaky|flaky test|flaky tests|intermittent failure|intermittently fails',
    '不稳定的测试|偶现失败|偶发失败',
  ],
  ['mock', 'mock|mocks|mocking|stub|stubs|test double|msw', '模拟|打桩|桩函数|假数据'],
  ['fixture', 'fixture|fixtures|test data|seed data|seeding', '测试数据|种子数据|初始数据'],
  ['snapshot-test', 'snapshot test|snapshot tests|snapshots|toMatchSnapshot', '快照测试|快照'],
  ['regression', 'regression|regressions|broke something|breaking change', '回归|回归测试|改坏了|破坏性变更'],
  [
    'load-test',
    'load test|stress test|load testing|k6|jmeter|locust|benchmark|benchmarks',
    '压测|压力测试|性能测试|基准测试',
  ],
  ['qa', 'qa|quality assurance|tester|testers|manual testing', '测试同学|质量保证|手工测试|提测'],
  ['test-environment', 'test environment|testing environment|qa environment|sit', '测试环境|联调环境'],

  // Builds and releases
  [
    'build',
    'build|builds|build command|compile|compiling|compilation|bundle|bundler|bundling|webpack|esbuild|rollup|vite build|tsc build|production build|make build|gradle build|cargo build',
    '构建|打包|编译|出包|构建命令|打包命令',
  ],
  [
    'build-output',
    'dist|build output|output directory|artifact|artifacts|build artifacts',
    '产物|构建产物|输出目录|打包产物',
  ],
  ['bundle-size', 'bundle size|chunk size|bundle analyzer|code splitting|tree shaking', '包体积|产物大小|包大小|分包'],
  [
    'deploy',
    'deploy|deploys|deployment|deployments|ship|release|releases|rollout|go live|publish|push to production',
    '部署|发布|上线|发版|发布上线|部署命令',
  ],
  [
    'staging',
    'staging|staging environment|pre-production|preprod|pre-prod|preview|preview deployment|preview link|uat',
    '预发|预发布|预发环境|预生产|灰度|灰度环境|预览环境',
  ],
  [
    'production',
    'production|prod|production environment|live site|live environment',
    '生产环境|线上|线上环境|正式环境|生产',
  ],
  [
    'local-dev',
    'local|locally|localhost|local machine|dev environment|development environment|127.0.0.1',
    '本地|本机|开发环境|本地环境|本地开发',
  ],
  ['rollback', 'rollback|roll back|revert the deploy|undo the release|rolled back', '回滚|回退|版本回退'],
  [
    'release-version',
    'version bump|release version|semver|semantic versioning|version number',
    '版本号|语义化版本|发版本号',
  ],
  ['changelog', 'changelog|release notes|change log', '更新日志|变更日志|发布说明|版本说明'],
  [
    'ci',
    'ci|continuous integration|pipeline|pipelines|github actions|gitlab ci|jenkins|circleci|ci job|workflow run|build pipeline',
    '流水线|持续集成|构建流水线|ci流水线',
  ],
  [
    'cd',
    'continuous delivery|continuous deployment|release pipeline|deploy pipeline|argo cd',
    '持续部署|持续交付|发布流水线',
  ],
  [
    'artifact-registry',
    'registry|container registry|npm registry|private registry|artifactory',
    '镜像仓库|制品库|私有源|私服',
  ],
  ['feature-flag', 'feature flag|feature flags|feature toggle|launchdarkly|kill switch', '特性开关|功能开关|灰度开关'],
  ['hotfix', 'hotfix|hot fix|emergency fix|patch release', '热修复|紧急修复|补丁版本'],
  [
    'canary',
    'canary|canary release|blue green|blue-green deployment|gradual rollout',
    '金丝雀发布|蓝绿发布|灰度发布|分批发布',
  ],

  // Version control
  [
    'commit',
    'commit|commits|commit message|commit messages|git message|commit msg|git commit|commit style|conventional commits|commit log',
    '提交|提交信息|提交记录|提交说明|提交规范|提交日志',
  ],
  [
    'branch',
    'branch|branches|branch name|branch naming|git checkout -b|git switch -c|feature branch|new branch|topic branch',
    '分支|新分支|分支名|分支规范|建分支|切分支|拉分支|分支命名',
  ],
  ['main-branch', 'main branch|master branch|trunk|default branch|push to main', '主分支|主干|主干分支'],
  ['merge', 'merge|merging|merged|squash|squash merge|fast-forward', '合并|合入|合代码|合并代码'],
  ['rebase', 'rebase|rebasing|git rebase|interactive rebase', '变基|变基操作'],
  [
    'pull-request',
    'pull request|pull requests|pr|prs|merge request|merge requests|mr|open a pr',
    '合并请求|拉取请求|提pr|提 pr|发pr|合入请求',
  ],
  [
    'code-review',
    'review|reviews|code review|reviewer|reviewers|approve|approval|approvals|lgtm|review comments',
    '代码评审|评审|代码审查|审查|审核|审代码|找人审|评审意见',
  ],
  ['git-tag', 'git tag|version tag|release tag', '打标签|版本标签'],
  ['git-push', 'push|git push|force push|pushed|before i push', '推送|推代码|强推|推上去'],
  ['git-pull', 'pull|git pull|fetch|git fetch|pull latest', '拉代码|拉取|拉最新代码|同步代码'],
  ['merge-conflict', 'merge conflict|merge conflicts|conflict markers|resolve conflicts', '合并冲突|代码冲突|解决冲突'],
  [
    'repository',
    'repository|repo|repos|git repo|codebase|source code|monorepo',
    '仓库|代码仓库|代码库|源码|源代码|单仓',
  ],
  ['clone', 'clone|git clone', '克隆|拉仓库|复刻'],
  ['cherry-pick', 'cherry-pick|cherry pick|backport', '摘取提交|挑拣提交|回合'],
  ['git-ignore', 'gitignore|.gitignore|ignored files|untracked files', '忽略文件|不提交的文件'],
  ['git-hook', 'git hook|git hooks|pre-commit|pre-push|husky|lint-staged', '提交钩子|git钩子|预提交'],
  ['git-stash', 'stash|git stash|stashed changes', '暂存|储藏|暂存改动'],
  ['diff', 'diff|diffs|changeset|patch file|lines changed|git diff', '差异|改动|变更|代码改动'],
  ['git-history', 'git log|git blame|commit history|bisect|git bisect', '提交历史|历史记录|追溯|二分查找提交'],
  ['version-control', 'git|version control|vcs|svn|mercurial', '版本控制|版本管理'],

  // Databases
  [
    'database',
    'database|databases|db|postgres|postgresql|psql|mysql|mariadb|sqlite|sql server|pg|database instance|db instance',
    '数据库|数据库实例|本地数据库|连数据库|库表',
  ],
  [
    'migration',
    'migration|migrations|schema migration|db migration|migrate|migrate down|schema change|alter table|add a column|knex|prisma migrate|flyway|liquibase|alembic|node-pg-migrate',
    '迁移|数据库迁移|迁移脚本|迁移文件|数据迁移|改表结构',
  ],
  [
    'schema',
    'schema|schema change|ddl|alter table|add a column|add column|column|columns|data model',
    '表结构|字段|加字段|改表|数据结构|表字段',
  ],
  ['table', 'create table|create a table|drop table|list tables|list the tables', '数据表|建表|新建表|表名|所有表'],
  ['sql-query', 'query|queries|sql|sql query|select statement|slow query|explain', '查询|语句|sql语句|慢查询|查询语句'],
  ['db-index', 'database index|db index|indexes|create index|composite index', '索引|建索引|联合索引'],
  [
    'transaction',
    'rollback transaction|isolation level|deadlock|database transaction|db transaction',
    '事务|事务隔离|死锁',
  ],
  ['backup', 'backup|backups|pg_dump|mysqldump|snapshot backup', '备份|还原|恢复数据|数据备份'],
  ['redis', 'redis|memcached|key-value store|valkey', '缓存服务|键值存储|redis缓存'],
  ['cache', 'cache|caching|cached|cache invalidation|cdn cache', '缓存|缓存失效|过期时间'],
  ['orm', 'orm|prisma|typeorm|sequelize|drizzle|sqlalchemy|active record|hibernate', '对象关系映射|数据访问层'],
  [
    'connection-string',
    'connection string|database url|dsn|jdbc url|connection url',
    '连接串|连接字符串|数据库地址|数据库连接',
  ],
  ['nosql', 'mongodb|mongo|nosql|dynamodb|document store|cassandra', '文档数据库|非关系型数据库'],
  ['search-engine', 'elasticsearch|opensearch|full-text search|meilisearch|solr', '全文检索|搜索引擎|全文搜索'],
  ['data-warehouse', 'data warehouse|bigquery|snowflake|clickhouse|etl|analytics db', '数据仓库|数仓|离线数据'],
  ['replica', 'replica|read replica|replication|failover', '从库|主从|主库|读写分离|副本'],
  ['connection-pool', 'connection pool|pool size|pgbouncer|pooling', '连接池|池大小'],

  // Network and servers
  ['port', 'port|ports|listen|listens|listening|bind|binds|reach|reachable|port number', '端口|端口号|监听|监听端口'],
  ['host', 'hostname|ip address|ip|bind address|server address', '主机|主机名|ip地址'],
  ['url', 'url|urls|base url|uri|href|web address', '链接|网址|地址|访问地址'],
  [
    'api',
    'api|apis|rest api|endpoint|endpoints|graphql|rpc|grpc|api base url|api endpoint',
    '接口|接口地址|接口路径|api接口',
  ],
  [
    'server',
    'server|servers|dev server|backend|back end|web server|app server',
    '服务器|服务端|后端|后台服务|开发服务器|后端服务',
  ],
  [
    'frontend',
    'frontend|front end|front-end|client side|web app|webapp|vite|vite dev server|webpack dev server|next dev',
    '前端|客户端|前端页面|前端项目',
  ],
  [
    'start-server',
    'start the server|start the dev server|run the server|npm start|npm run dev|pnpm dev|yarn dev|run dev|boot the app',
    '启动|启动服务|跑起来|起服务|启动开发服务器|运行项目',
  ],
  ['http', 'http|https|http request|fetch call', '请求|响应|http请求|发请求'],
  ['status-code', 'status code|http status', '状态码|返回码'],
  ['dns', 'dns|domain name|subdomain|cname', '域名|域名解析|子域名|解析'],
  ['proxy', 'proxy|reverse proxy|nginx|load balancer|haproxy|envoy|ingress', '代理|反向代理|负载均衡'],
  ['tls', 'tls|ssl|cert|certs|https certificate|letsencrypt', '证书|ssl证书|https证书'],
  ['firewall', 'firewall|allowlist|whitelist|security group|ip allowlist', '防火墙|白名单|安全组'],
  ['vpn', 'vpn|bastion|jump host|jumpbox|private network|intranet', '跳板机|内网|专线|堡垒机'],
  ['websocket', 'websocket|websockets|socket|server-sent events|sse|long polling', '长连接|推送通道|套接字'],
  ['cors', 'cors|cross-origin|preflight|same-origin', '跨域|跨域请求|同源策略'],
  ['timeout', 'timeout|timeouts|deadline exceeded', '超时|请求超时|超时时间'],
  [
    'retry',
    'retry|retries|retrying|backoff|exponential backoff|try again|retry later|retry policy',
    '重试|退避|重试策略|指数退避|重新尝试',
  ],
  ['rate-limit', 'rate limit|rate limits|rate limiting|throttle|throttling|quota|429', '限流|限频|配额|频率限制'],
  [
    'callback',
    'webhook|webhooks|callback|callbacks|callback url|notify url|notification url|payment callback|payment notification|webhook endpoint',
    '回调|回调地址|通知地址|异步通知|回调接口|支付回调|回调链接',
  ],
  [
    'health-check',
    'health check|health endpoint|healthz|liveness|readiness|ping endpoint',
    '健康检查|探活|心跳|存活检查',
  ],
  ['ssh', 'ssh|ssh key|ssh keys|authorized_keys|scp', '公钥|私钥|密钥对|远程登录'],
  [
    'remote-server',
    'remote server|remote machine|vps|ec2 instance|virtual machine|vm',
    '远程服务器|云服务器|虚拟机|服务器登录',
  ],
  ['network', 'bandwidth|packet loss', '网络|带宽|丢包|网络延迟'],

  // Configuration and secrets
  ['config', 'config|configs|configuration|config file|yaml config|toml|conf', '配置|配置文件|配置项|设置'],
  [
    'env-var',
    'environment variable|environment variables|env var|env vars|dotenv|env file',
    '环境变量|环境配置|env文件',
  ],
  ['environment', 'env|envs', '部署环境|运行环境'],
  ['secret', 'api key|api keys|credentials|access key|secret manager|vault', '密钥|秘钥|凭证|访问密钥|密钥管理'],
  ['password', 'password|passwords|passphrase|pin code', '密码|口令'],
  ['token', 'token|tokens|access token|refresh token|bearer token|jwt', '令牌|访问令牌|刷新令牌'],

  // Logs, monitoring, incidents
  [
    'log',
    'log|logs|logging|logger|log file|log files|log output|console output',
    '日志|打日志|日志文件|输出日志|控制台输出',
  ],
  [
    'log-level',
    'log level|log levels|debug logs|debug logging|verbose|verbose output|verbose logging|info level|trace level|quiet',
    '日志级别|调试日志|日志等级|详细日志|日志输出级别',
  ],
  [
    'monitoring',
    'monitoring|metrics|dashboard|dashboards|grafana|prometheus|datadog|new relic|observability',
    '监控|指标|看板|大盘|可观测性|监控面板',
  ],
  ['alert', 'alert|alerts|alerting|pager|pagerduty|opsgenie', '告警|报警|告警规则|预警'],
  ['on-call', 'oncall|on-call rotation', '值班|轮值|值班表'],
  [
    'tracing',
    'tracing|trace|traces|opentelemetry|otel|span|spans|jaeger|distributed tracing',
    '链路追踪|调用链|链路|分布式追踪',
  ],
  ['incident', 'outage|outages|postmortem|post-mortem|sev1', '事故|故障|宕机|复盘|线上故障'],
  [
    'error-handling',
    'error handling|errors|error|exception|exceptions|error code|error codes|error class|signal failures|failure handling',
    '错误处理|异常|抛异常|报错|错误码|错误|异常处理|抛出异常',
  ],
  ['crash', 'segfault|core dump', '崩溃|闪退|挂了|卡死'],
  ['stack-trace', 'stack trace|stack traces|traceback|backtrace|stacktrace', '堆栈|调用栈|报错信息|错误堆栈'],
  ['bug', 'bug|bugs|defect|defects|issue tracker|bug report', '缺陷|问题单|提bug|故障单'],
  ['fix', 'fix|fixes|bugfix|bug fix|patch|patches', '修复|修bug|修一下|补丁'],
  ['debug', 'debug|debugging|debugger|breakpoint|breakpoints|step through', '调试|断点|排查|定位问题|打断点'],
  ['warning', 'deprecation|deprecated', '警告|告警信息|废弃|已弃用'],

  // Performance
  ['performance', 'optimize|optimization|perf', '性能|慢|优化|提速|性能优化|耗时'],
  ['latency', 'latency|response time|p95|p99|tail latency', '延迟|响应时间|时延|耗时长'],
  ['memory', 'ram|memory leak|memory usage|heap|oom|garbage collection', '内存|内存泄漏|内存占用|堆内存|内存溢出'],
  ['cpu', 'cpu|cpu usage|cpu load|processor', 'cpu占用|处理器|核数'],
  ['profiling', 'profiling|profiler|flame graph|flamegraph|pprof|clinic', '性能分析|火焰图|性能剖析'],
  [
    'concurrency',
    'concurrency|concurrent|parallel|parallelism|threads|worker threads|race condition|mutex',
    '并发|并行|线程|竞态|锁|多线程',
  ],
  ['async', 'async|await|asynchronous|event loop|callback hell', '异步|异步调用|事件循环'],
  ['scaling', 'scaling|autoscaling|horizontal scaling', '扩容|缩容|弹性伸缩|水平扩展|容量'],

  // Packages and runtimes
  [
    'package-manager',
    'package manager|npm|pnpm|yarn|bun|pip|poetry|pipenv|uv|cargo|go mod|composer|maven|gradle|npm or yarn',
    '包管理器|包管理|包管理工具|包管理器用哪个',
  ],
  [
    'dependency',
    'dependency|dependencies|deps|install dependencies|node_modules|third-party package|npm package|add a package|install a package|package install',
    '依赖|依赖包|第三方库|装依赖|安装依赖|依赖安装|第三方包',
  ],
  ['lockfile', 'lockfile|lock file|package-lock.json|pnpm-lock.yaml|yarn.lock|poetry.lock|cargo.lock', '锁文件|依赖锁'],
  [
    'upgrade',
    'upgrade|upgrades|bump|update dependencies|outdated|dependabot|renovate',
    '升级|更新依赖|升级依赖|版本升级',
  ],
  [
    'runtime',
    'node|node.js|nodejs|nvm|nvm use|.nvmrc|node version|runtime|runtime version|deno|bun runtime|volta|fnm',
    '运行时|运行时版本|node版本|node 版本|node环境',
  ],
  ['python', 'python|python3|venv|virtualenv|pyenv|conda|requirements.txt|pyproject', 'python环境|虚拟环境|python版本'],
  ['typescript', 'typescript|ts|tsc|tsconfig|type check|typecheck|type checking', '类型检查|类型|类型定义|类型声明'],
  ['java', 'java|jvm|jdk|spring boot|kotlin', 'java版本|jdk版本'],
  ['go-lang', 'golang|go module|go modules', 'go语言|go 语言'],
  ['rust-lang', 'rustc|cargo crate|crate|crates|rustup|rust language|rust code', 'rust语言|rust 语言'],
  [
    'container',
    'docker|dockerfile|docker image|docker compose|docker-compose|podman|compose file|container image|docker container',
    '容器|镜像|容器化|docker镜像|容器镜像',
  ],
  ['kubernetes', 'kubernetes|k8s|kubectl|helm|helm chart|namespace|deployment yaml', '集群|容器编排|k8s集群'],
  ['cloud', 'aws|gcp|azure|alibaba cloud|aliyun|tencent cloud|cloud provider', '云|云服务|阿里云|腾讯云|云厂商|地域'],
  ['object-storage', 's3|object storage|blob storage|oss|minio', '存储桶|对象存储'],
  [
    'serverless',
    'serverless|lambda|cloud function|cloud functions|vercel|netlify|cloudflare workers',
    '无服务器|云函数|函数计算',
  ],
  ['cdn', 'cdn|static assets|edge cache|cloudflare', '静态资源|内容分发|cdn加速'],
  [
    'infrastructure',
    'terraform|infrastructure as code|iac|pulumi|ansible|infrastructure',
    '基础设施|基础设施即代码|运维脚本',
  ],

  // Conventions and style
  [
    'lint',
    'lint|linter|linting|eslint|ruff|flake8|pylint|clippy|golangci-lint|lint errors|static analysis|stylelint',
    '代码检查|静态检查|规范检查|lint检查|代码规范检查',
  ],
  [
    'format',
    'format|formatter|formatting|prettier|black|gofmt|rustfmt|code style|style guide|code formatting',
    '格式化|代码风格|代码格式|风格指南',
  ],
  [
    'naming',
    'naming|naming convention|naming conventions|variable names|file names|camelcase|snake_case|kebab-case',
    '命名|命名规范|命名规则|驼峰|下划线命名',
  ],
  [
    'convention',
    'convention|conventions|guideline|guidelines|best practice|best practices|house style',
    '规范|约定|准则|惯例|约定俗成|开发规范',
  ],
  ['code-comment', 'code comments|docstring|docstrings|jsdoc|inline comment', '注释|代码注释|文档注释'],
  ['refactor', 'refactor|refactoring|cleanup|restructure', '重构|整理代码|代码重构|优化代码结构'],
  ['documentation', 'documentation|docs|readme|wiki|docs site|adr', '文档|说明文档|使用文档|开发文档|接口说明'],
  ['indentation', 'indentation|indent|tab width|two spaces', '缩进|空格缩进|制表符'],
  [
    'code-quality',
    'code quality|tech debt|technical debt|code smell|dead code',
    '代码质量|技术债|技术债务|代码异味|死代码',
  ],
  ['type-safety', 'type safety|strict mode|null check|null checks|nullable', '类型安全|严格模式|空值检查'],
  ['null-value', 'null|undefined|nil|return null|null pointer', '空值|返回空|空指针|空'],

  // Front end
  [
    'component',
    'component|components|react component|ui component|function component|functional component|widget|widgets|write a component',
    '组件|函数组件|控件|组件怎么写|写组件|ui组件|组件规范',
  ],
  [
    'state-management',
    'state|state management|global store|global state|store state|redux|zustand|mobx|pinia|vuex|recoil|jotai|where state lives',
    '状态|状态管理|全局状态|状态库|数据流',
  ],
  [
    'styling',
    'css|css modules|tailwind|sass|scss|styled-components|stylesheet|css-in-js',
    '样式|样式表|样式方案|写样式|css样式',
  ],
  ['routing', 'router|routing|react router|deep link', '路由|页面跳转|路由配置|导航'],
  ['form', 'form validation|input validation|zod|yup', '表单|校验|表单校验|参数校验|输入校验'],
  ['react', 'jsx|tsx|next.js|nextjs|react native', 'react组件|钩子函数|hooks写法'],
  ['vue', 'vue|nuxt|vue component|composition api|options api', 'vue组件|组合式api'],
  ['ui', 'ui|user interface', '界面|页面|布局|用户界面|界面代码|视图'],
  ['accessibility', 'accessibility|a11y|aria|screen reader|keyboard navigation', '无障碍|可访问性|读屏'],
  ['i18n', 'i18n|internationalization|l10n|translation|translations', '国际化|本地化|多语言|翻译文案'],
  ['theme', 'dark mode|light mode|color scheme|design tokens', '暗色模式|深色模式|主题|配色|主题色'],
  ['responsive', 'mobile layout|media query', '响应式|移动端适配|适配'],
  ['icon', 'svg|favicon', '图标|矢量图|图标库'],
  ['dev-tools', 'devtools|browser devtools|react devtools|inspector|console', '开发者工具|控制台|调试工具'],
  ['storybook', 'storybook|component library|design system|ui kit', '组件库|设计系统|设计规范'],
  ['browser', 'browser|browsers|firefox|chromium', '浏览器|谷歌浏览器|火狐'],
  ['seo', 'seo|meta tags|sitemap|search ranking', '搜索引擎优化|站点地图'],
  [
    'ssr',
    'ssr|server-side rendering|server side rendering|hydration|static site generation|ssg',
    '服务端渲染|同构渲染|静态生成',
  ],

  // Back end
  [
    'queue',
    'queue|queues|job queue|message queue|bullmq|bull|rabbitmq|kafka|sqs|celery|sidekiq|background jobs|background job|async worker',
    '队列|消息队列|任务队列|异步任务|后台任务',
  ],
  [
    'cron',
    'cron|cron job|cron jobs|scheduled job|scheduled task|nightly job|crontab',
    '定时任务|定时|计划任务|定时器|每天定时',
  ],
  ['microservice', 'microservice|microservices|service mesh|monolith|service boundary', '微服务|服务拆分|单体'],
  ['auth', 'auth|authentication|login|signin|sso|oauth|openid|login page', '认证|登录|鉴权|单点登录|登录态|会话'],
  ['permission', 'authorization|rbac|access control|acl', '权限|授权|访问控制|权限控制'],
  ['account', 'signup|registration|user account|user accounts', '账号|账户|注册|用户账号'],
  ['email', 'email|emails|smtp|mailer|mail server|sendgrid|mailgun', '邮件|邮箱|发邮件|邮件服务'],
  [
    'notification',
    'notification|notifications|push notification|push notifications|notify|in-app message',
    '通知|消息推送|站内信|消息通知',
  ],
  ['upload', 'upload|uploads|file upload|multipart|presigned url', '上传|文件上传|上传文件'],
  ['search', 'search box|search feature|autocomplete|typeahead|search api', '搜索|检索|搜索框|联想'],
  ['pagination', 'pagination|paginate|cursor|page size|infinite scroll', '分页|翻页|分页查询'],
  [
    'payment',
    'payment|payments|checkout|stripe|alipay|wechat pay|payment gateway|psp',
    '支付|付款|收款|结账|支付宝|微信支付|支付网关|下单支付',
  ],
  ['refund', 'refund|refunds|refunded|chargeback|chargebacks|reversal', '退款|退钱|退单|退款单'],
  ['invoice', 'invoice|invoices|billing', '发票|账单|计费|收据|开票'],
  ['subscription', 'subscription|subscriptions|recurring billing', '订阅|套餐|续费|自动续费|试用'],
  ['cart', 'cart|shopping cart|cart page|add to cart', '购物车|加购|购物篮'],
  ['order', 'order id|order status', '订单|下单|订单号|订单状态'],
  ['price', 'pricing|currency|rounding|decimal', '价格|金额|定价|币种|四舍五入|精度'],
  ['sandbox', 'sandbox mode|test mode|test account|test credentials', '沙箱|沙盒|测试账号|沙箱环境'],
  ['idempotency', 'idempotency|idempotent|idempotency key|dedupe|deduplication', '幂等|幂等性|去重'],
  ['inventory', 'inventory|sku|skus', '库存|商品库存|货品'],
  ['product', 'product card|catalog|catalogue|product list|product page', '商品|产品|商品卡片|商品列表|商品详情'],
  ['shipping', 'fulfillment|tracking number|courier', '物流|发货|配送|快递单号'],
  ['coupon', 'coupon|coupons|discount|promo code|voucher', '优惠券|折扣|优惠码|满减'],
  ['file-storage', 'file storage|attachments|attachment|media files', '附件|文件存储|媒体文件'],
  ['api-spec', 'openapi|swagger|api docs|api spec|api schema|postman', '接口文档|接口定义|接口规范'],
  ['serialization', 'json|yaml|xml|protobuf|serialization|serialize|deserialize|msgpack', '序列化|反序列化|数据格式'],
  ['date-time', 'date format|iso date|timestamp|timestamps|datetime|unix time', '日期格式|时间戳|日期时间|时间格式'],
  ['encoding', 'utf-8|utf8|encoding|charset|unicode|base64', '编码|字符集|乱码'],
  ['uuid', 'uuid|uuids|guid|primary key|auto increment|ulid', '主键|自增|唯一标识'],
  ['gateway', 'api gateway|gateway|kong|bff', '网关|接口网关|api网关'],
  ['graphql-schema', 'resolver|resolvers|subscription resolver', '解析器|变更操作'],
  ['sdk', 'sdk|client library|api client', '开发包|客户端库|封装'],

  // Security
  [
    'vulnerability',
    'vulnerability|vulnerabilities|cve|security issue|security audit|npm audit|snyk',
    '漏洞|安全问题|安全审计|安全漏洞',
  ],
  ['encryption', 'encryption|encrypt|decrypt|hashing|hash|bcrypt|argon2|aes', '加密|解密|哈希|散列|加盐'],
  ['injection', 'sql injection|xss|csrf|sanitize|sanitization|escaping', 'sql注入|跨站脚本|跨站请求伪造|转义'],
  ['privacy', 'pii|gdpr|personal data|data protection', '隐私|个人信息|数据保护|脱敏'],

  // Files, projects, tools
  [
    'directory',
    'directory|directories|folder|folders|subfolder|working directory|cwd',
    '目录|文件夹|路径|子目录|工作目录',
  ],
  ['script', 'npm script|npm scripts|package.json scripts|task runner', '构建脚本|执行脚本'],
  ['scaffold', 'scaffold|scaffolding|boilerplate', '模板|脚手架|样板代码|初始化项目'],
  ['license', 'mit license|apache license|gpl|copyright', '许可证|开源协议'],
  [
    'editor',
    'editor|ide|vim|neovim|nvim|emacs|vscode|vs code|visual studio code|intellij|webstorm|pycharm|sublime|lazyvim|cursor editor|zed',
    '编辑器|开发工具|编辑工具',
  ],
  [
    'shell',
    'shell|zsh|bash|fish shell|shell config|zshrc|.zshrc|bashrc|.bashrc|starship|oh my zsh|tmux|command line',
    '终端|命令行|别名|终端配置|shell配置',
  ],
  ['keyboard', 'keybinding|keybindings|hotkey|hotkeys|keymap', '快捷键|键位|按键绑定'],
  ['operating-system', 'os|operating system|macos|mac os|linux|ubuntu|debian|wsl', '操作系统|系统版本|苹果系统'],
  ['machine', 'laptop|workstation|macbook|dev machine|desktop machine', '电脑|笔记本|工作机|开发机'],
  ['font', 'font|fonts|typeface|monospace font|nerd font', '字体|等宽字体'],
  ['package-json', 'package.json|manifest|pyproject.toml|cargo.toml', '项目清单|依赖配置'],
  ['env-setup', 'setup|onboarding|getting started|install guide|first run', '环境搭建|搭环境|新人上手|安装指南'],
  ['cli-tool', 'cli|cli tool|command-line tool|binary|executable', '命令行工具|可执行文件'],

  // People and process
  [
    'owner',
    'code owner|code owners|codeowners|maintainer|maintainers|maintains|point of contact',
    '负责人|维护者|维护人|所有者|对接人|谁负责',
  ],
  ['team', 'squad|colleague|colleagues|teammate|teammates', '团队|小组|同事|组员'],
  ['ticket', 'jira|task id|jira ticket', '工单|需求单|任务单|需求|任务号'],
  ['meeting', 'standup|stand-up|one-on-one|retro|retrospective', '会议|站会|开会|周会|复盘会'],
  ['deadline', 'release date|eta', '截止日期|期限|上线时间|排期|截止时间'],
  ['sprint', 'iteration|roadmap', '迭代|里程碑|路线图|冲刺'],
  [
    'design-review',
    'design review|design doc|design document|rfc|architecture review',
    '设计评审|设计文档|方案评审|技术方案',
  ],
  ['handover', 'handover|hand off|handoff|knowledge transfer', '交接|移交|知识转移'],
  [
    'pr-size',
    'small prs|pr size|pull request size|small pull requests|one topic each|split the pr|lines per pr|how big a pr',
    'pr大小|改动量|拆pr|小步提交',
  ],

  // The user's own preferences
  [
    'time-zone',
    'time zone|timezone|time zones|tz|utc|local time|gmt|utc+8|asia/shanghai',
    '时区|当地时间|本地时间|北京时间|东八区',
  ],
  [
    'answer-language',
    'answer language|reply language|language preference|answer in chinese|answer in english|reply in chinese',
    '用中文|用英文|中文回答|英文回答|哪种语言|什么语言',
  ],
  ['answer-style', 'short answers|verbose answers|bullet points|step by step', '简洁|详细|简短|分点|一步一步'],
  ['communication', 'slack|teams chat|wechat|dingtalk|feishu|lark|chat channel', '微信群|钉钉|飞书|企业微信|群聊'],

  // Data and machine learning
  [
    'llm',
    'llm|llms|language model|large language model|gpt|deepseek|model provider|chat model',
    '大模型|语言模型|大语言模型|模型服务',
  ],
  ['prompt', 'system prompt|prompt template', '提示词|系统提示词|提示模板'],
  [
    'embedding',
    'embedding|embeddings|vector|vectors|vector search|vector database|pgvector',
    '向量|嵌入|向量检索|向量数据库',
  ],
  ['dataset', 'dataset|datasets|training data|csv file|data file|parquet', '数据集|训练数据|数据文件'],
  ['notebook', 'jupyter|ipynb|colab', '交互式笔记本'],
  ['analytics', 'analytics|event tracking|telemetry|mixpanel', '埋点|数据分析|统计|上报'],
  ['ab-test', 'a/b test|ab test|split test', 'ab测试|实验|分流实验'],

  // Mobile and desktop
  ['mobile', 'mobile|ios|android|mobile app|app store|play store|flutter|kotlin android', '移动端|安卓|苹果|手机端'],
  ['desktop-app', 'electron|tauri|desktop app|desktop client', '桌面端|桌面应用|客户端程序'],
  ['mini-program', 'mini program|wechat mini program|miniapp', '小程序|微信小程序'],

  // Errors, operations and data operations
  ['restart', 'restart|restarts|reboot|reload|hot reload|hmr', '重启|重新加载|热更新|热重载'],
  ['disk', 'disk|disk space|disk full', '磁盘|硬盘|存储空间|磁盘满'],
  ['permissions-file', 'chmod|chown|file permissions|permission denied|sudo', '文件权限|权限不足|没有权限'],
  ['process', 'pid|zombie process|daemon|systemd|pm2|supervisor', '进程|守护进程|杀进程|进程管理'],
  ['data-export', 'csv export|data export', '数据导出|数据导入'],
  ['sync', 'synchronize|synchronization', '同步|数据同步|镜像同步'],
  ['cleanup-data', 'purge|truncate|cleanup job', '清理|清空|删除数据|清数据'],
  ['pagination-api', 'limit offset|offset|cursor pagination|next page', '偏移量|下一页|游标分页'],
  ['batch', 'batch job|bulk insert', '批量|批处理|批量插入|分批'],
  ['event', 'event bus|pub/sub|pubsub|domain event|event driven', '事件|事件总线|发布订阅|事件驱动'],
  ['state-machine', 'state machine|workflow engine|status transition|xstate', '状态机|状态流转|工作流引擎'],
  ['locking', 'distributed lock|optimistic locking|pessimistic locking|advisory lock', '分布式锁|乐观锁|悲观锁'],
  ['consistency', 'eventual consistency|strong consistency', '一致性|最终一致性|强一致'],
  ['timezone-data', 'daylight saving|dst|time offset|utc offset', '夏令时|时差'],
  ['localization-money', 'exchange rate|fx rate|currency conversion', '汇率|换汇|币种转换'],

  // Code structure
  ['module', 'package structure|folder structure|project structure|layering', '模块|目录结构|项目结构|分层|架构'],
  ['function', 'util|utils', '函数|方法|工具函数|辅助函数'],
  ['class', 'interface type|struct|structs|enum|enums', '类|结构体|枚举|接口类型'],
  ['variable', 'magic number', '变量|常量|魔法数字'],
  ['dependency-injection', 'dependency injection|di|inversion of control|service container', '依赖注入|控制反转'],
  ['api-versioning', 'api version|api versioning|v1|v2|breaking api change', '接口版本|版本兼容'],
  [
    'backward-compat',
    'backward compatible|backwards compatibility|compat|compatibility|polyfill',
    '兼容|兼容性|向下兼容|向后兼容',
  ],
  ['code-generation', 'codegen|code generation|generated code|openapi generator|protoc', '代码生成|生成代码'],
  ['monorepo-tools', 'turborepo|nx|lerna|pnpm workspace', '多包管理|单仓多包'],
  ['plugin', 'plugin|plugins|add-on|middleware', '插件|中间件'],

  // Working agreements
  ['code-freeze', 'code freeze|release freeze|change freeze', '封板|代码冻结|封版'],
  ['pairing', 'pair programming|mob programming', '结对编程|结对'],
  ['estimate', 'story points|t-shirt size', '估时|估点|工作量评估'],
  ['working-hours', 'working hours|office hours|ooo', '工作时间|上班时间|请假|休假'],
  ['priority', 'p0|p1|blocker', '优先级|紧急|阻塞|高优'],

  // Product features, services and tools (added with version 2026-12-04.3)
  ['webhook-signature', 'webhook signature|signing secret|hmac|verify signature|signature check', '签名|验签|签名校验'],
  [
    'browser-storage',
    'cookie|cookies|local storage|localstorage|session storage|indexeddb',
    '本地存储|会话存储|浏览器存储',
  ],
  ['uptime', 'uptime|sla|slo|availability target|error budget', '可用性|服务等级协议|错误预算'],
  ['key-rotation', 'key rotation|rotate the keys|rotate secrets|credential rotation', '密钥轮换|轮换密钥'],
  ['two-factor', '2fa|mfa|two-factor|two factor|totp|one-time password|otp', '双因素认证|二次验证|动态口令|两步验证'],
  ['captcha', 'captcha|recaptcha|hcaptcha|turnstile', '人机验证|图形验证码|滑块验证'],
  ['sms', 'sms|sms code|text message|twilio', '短信|短信验证码|发短信'],
  ['geo', 'geolocation|latitude|longitude|gps|geocoding', '定位|经纬度|地理位置'],
  ['map', 'maps api|map api|mapbox|google maps|leaflet', '地图|地图接口|高德地图|百度地图'],
  ['video', 'video streaming|hls|transcoding|ffmpeg|live stream', '视频|转码|直播|视频流'],
  ['image-processing', 'thumbnail|thumbnails|image resize|image compression|sharp library', '缩略图|图片压缩|图片处理'],
  ['pdf', 'pdf|pdf generation|pdf export|puppeteer pdf', 'pdf生成|导出pdf|生成pdf'],
  ['spreadsheet', 'excel|xlsx|spreadsheet|csv import', 'excel表格|电子表格|表格导入'],
  ['qr-code', 'qr code|qrcode|qr codes', '二维码|扫码'],
  ['audit-log', 'audit log|audit trail|activity log|operation log', '审计日志|操作日志|操作记录'],
  ['soft-delete', 'soft delete|soft-delete|deleted_at|logical delete', '软删除|逻辑删除'],
  ['sorting', 'sort order|sorting|sort key', '排序|排序规则|排序字段'],
  ['query-params', 'query params|query parameters|query string|url params', '查询参数|请求参数|url参数'],
  ['regex', 'regex|regexp|regular expression|regular expressions', '正则|正则表达式'],
  ['date-library', 'dayjs|moment.js|momentjs|date-fns|luxon', '日期库|时间库'],
  ['http-client', 'axios|fetch api|http client|ky|got client|requests library', '请求库|http客户端|网络请求库'],
  ['graph-database', 'neo4j|graph database|cypher query', '图数据库'],
  ['time-series', 'influxdb|timescaledb|time series|time-series database', '时序数据库|时间序列'],
  ['service-discovery', 'service discovery|consul|etcd|eureka|service registry', '服务发现|注册中心|服务注册'],
  ['config-center', 'config center|config server|nacos|apollo config', '配置中心|配置服务'],
  ['circuit-breaker', 'circuit breaker|circuit breakers|fallback response|bulkhead', '熔断|熔断器|服务降级|降级'],
  [
    'distributed-transaction',
    'saga|saga pattern|two-phase commit|outbox pattern|distributed transaction',
    '分布式事务|两阶段提交|事务消息',
  ],
  ['sharding', 'sharding|shard|shards|partitioning|partition key', '分库分表|分片|分区键|分表'],
  ['log-platform', 'elk|loki|kibana|logstash|fluentd|log aggregation', '日志平台|日志系统|日志收集'],
  ['error-tracking', 'sentry|error tracking|crash reporting|bugsnag|rollbar', '错误监控|异常上报|崩溃上报'],
  ['git-config', 'git config|gitconfig|user.email|.gitconfig', 'git配置|git 配置'],
  ['package-publish', 'npm publish|publish the package|publish to npm|package release', '发包|发布npm包|发布包'],
  ['ai-coding', 'copilot|code completion|ai autocomplete|coding assistant', '代码补全|智能补全|编程助手'],
  ['rag', 'rag|retrieval augmented generation|knowledge base|document retrieval', '检索增强|知识库|检索增强生成'],
  ['fine-tuning', 'fine-tune|fine-tuning|finetune|lora|sft', '微调|模型微调'],
  ['gpu', 'gpu|gpus|cuda|nvidia|vram', '显卡|算力|显存'],
  ['context-window', 'context window|context length|max tokens|token limit', '上下文窗口|上下文长度|最大长度'],
  ['password-reset', 'password reset|forgot password|reset link|reset password', '重置密码|找回密码|忘记密码'],
  ['billing-cycle', 'billing cycle|proration|prorated|billing period', '账期|结算周期|按比例计费|计费周期'],
  ['tax', 'vat|sales tax|tax rate|tax calculation|gst', '税率|增值税|计税|税费'],
  ['reconciliation', 'reconciliation|reconcile|settlement|settlements|ledger', '对账|结算|账本|清结算'],
  ['fraud', 'fraud|fraud detection|risk control|risk engine', '风控|反欺诈|风险控制'],
  ['kyc', 'kyc|identity verification|id verification', '实名认证|身份验证|实名'],
  ['wishlist', 'wishlist|wish list|favorites list|saved items', '收藏夹|心愿单|收藏'],
  ['product-review', 'product reviews|star rating|ratings and reviews|customer reviews', '商品评价|评分|用户评价'],
  [
    'recommendation',
    'recommendations|recommender|recommendation engine|recommended products',
    '推荐系统|推荐算法|猜你喜欢',
  ],
  ['banner', 'banner|banners|carousel|hero image|hero banner', '轮播图|横幅|首页横幅'],
  ['modal', 'modal|modals|dialog box|popup|pop-up', '弹窗|对话框|模态框'],
  ['toast', 'toast|toasts|snackbar|toast message', '轻提示|提示条|消息提示'],
  ['data-grid', 'data grid|data table|ag-grid|datagrid|table component', '数据表格|表格组件'],
  ['chart', 'chart|charts|echarts|recharts|d3|line chart|bar chart', '图表|折线图|柱状图|饼图'],
  ['animation', 'animation|animations|css transition|framer motion|keyframes', '动画|过渡效果|动效'],
  ['lazy-loading', 'lazy loading|lazy load|lazy-load|dynamic import', '懒加载|按需加载|动态导入'],
  ['pwa', 'service worker|pwa|offline mode|progressive web app', '离线模式|渐进式应用|离线缓存'],
  ['web-vitals', 'core web vitals|web vitals|lcp|cls|lighthouse|first paint', '首屏|首屏时间|页面性能|白屏'],
  ['onboarding-flow', 'onboarding flow|signup flow|welcome screen|first-run experience', '新手引导|引导页|注册流程'],
  ['search-ui', 'search results page|search bar|filters panel|faceted search', '搜索页|搜索结果页|筛选面板'],
  ['checkout', 'checkout page|checkout flow|place order|order confirmation', '结算页|下单流程|确认订单|提交订单'],
  ['address-form', 'shipping address|billing address|address form|postal code', '收货地址|地址表单|邮编'],
  ['admin-panel', 'admin panel|admin dashboard|back office|backoffice|cms', '管理后台|运营后台|后台管理'],
  ['cli-args', 'command line flags|cli flags|argv|argument parsing|commander.js|yargs', '命令行参数|参数解析'],
  ['file-watch', 'file watcher|watch mode|nodemon|chokidar|--watch', '文件监听|监听模式|热更新监听'],
  ['makefile', 'makefile|make target|make targets|gnu make', 'make命令|makefile文件'],
  ['shell-script', 'bash script|shell script|sh script|zsh script', 'shell脚本|bash脚本'],
  ['cron-expression', 'cron expression|cron syntax|crontab entry', 'cron表达式|定时表达式'],
  ['ssh-config', 'ssh config|.ssh/config|ssh host alias|known_hosts', 'ssh配置'],
  ['proxy-settings', 'http_proxy|https_proxy|proxy settings|corporate proxy|npm proxy', '代理设置|公司代理|网络代理'],
  ['mirror-registry', 'npm mirror|registry mirror|npmmirror|taobao mirror|pip mirror', '镜像源|国内镜像|淘宝镜像|换源'],
]

/**
 * Chinese members taken from CC-CEDICT (read through the chinese-lexicon package, a dev dependency): headwords whose
 * first English definition is one of their concept's English members, kept after reading each, since most such
 * matches are another sense ("yarn" is 纱线, "python" 巨蟒). tests/lexicon.spec.ts checks each against the dictionary.
 * [concept, Chinese member, the English member CC-CEDICT defines it as]
 */
export const CEDICT_MEMBERS: readonly (readonly [string, string, string])[] = [
  ['async', '非同步', 'asynchronous'],
  ['routing', '路由器', 'router'],
  ['ui', '人机界面', 'user interface'],
  ['upload', '上载', 'upload'],
  ['email', '电子邮件', 'email'],
  ['email', '电子邮箱', 'email'],
  ['email', '电邮', 'email'],
  ['encoding', '统一码', 'unicode'],
  ['encoding', '万国码', 'unicode'],
  ['date-time', '时戳', 'timestamp'],
  ['gateway', '闸道', 'gateway'],
  ['directory', '资料夹', 'folder'],
  ['keyboard', '热键', 'hotkey'],
  ['operating-system', '作业系统', 'operating system'],
  ['machine', '工作站', 'workstation'],
  ['font', '字型', 'font'],
  ['restart', '重新启动', 'reboot'],
  ['restart', '重新开机', 'reboot'],
  ['embedding', '矢量', 'vector'],
  ['analytics', '遥测', 'telemetry'],
  ['infrastructure', '基础结构', 'infrastructure'],
  ['pagination', '游标', 'cursor'],
  ['shipping', '追踪号码', 'tracking number'],
  ['shipping', '速递', 'courier'],
  ['coupon', '抵用券', 'voucher'],
  ['coupon', '购物券', 'coupon'],
  ['documentation', '维基', 'wiki'],
  ['working-hours', '办公时间', 'office hours'],
  ['cli-tool', '可执行', 'executable'],
]

/** The concepts, each with its members in both languages (English first). */
export const CONCEPT_GROUPS: readonly {
  readonly id: string
  readonly en: readonly string[]
  readonly zh: readonly string[]
  readonly members: readonly string[]
}[] = ROWS.map(([id, en, zh]) => {
  const english = en
    .split('|')
    .map((member) => member.trim())
    .filter((member) => member !== '')
  const chinese = [
    ...zh.split('|'),
    ...CEDICT_MEMBERS.filter(([concept]) => concept === id).map(([, member]) => member),
  ]
    .map((member) => member.trim())
    .filter((member) => member !== '')
  return { id, en: english, zh: chinese, members: [...english, ...chinese] }
})
