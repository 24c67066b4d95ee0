/**
 * The fake embedding model's bilingual concept lexicon: each concept lists the English forms (lower case, with a
 * few synonyms and inflections) and the Chinese words that mean it. Texts naming the same concept in either
 * language land close; texts naming different concepts land near orthogonal.
 */

/** One concept: its id and the words that name it. */
export interface FakeConcept {
  readonly id: string
  readonly en: readonly string[]
  readonly zh: readonly string[]
}

/** The concepts, in a fixed order (the order picks each concept's direction). */
export const FAKE_CONCEPTS: readonly FakeConcept[] = [
  { id: 'port', en: ['port', 'ports', 'listen', 'listens', 'listening'], zh: ['端口', '监听'] },
  { id: 'database', en: ['database', 'databases', 'db', 'postgres', 'sqlite'], zh: ['数据库'] },
  { id: 'deploy', en: ['deploy', 'deploys', 'deployed', 'deployment', 'release'], zh: ['部署', '上线'] },
  { id: 'language', en: ['language', 'languages', 'speaks', 'speak'], zh: ['语言'] },
  { id: 'city', en: ['city', 'cities', 'town', 'hometown'], zh: ['城市', '住在'] },
  { id: 'color', en: ['color', 'colors', 'colour', 'colours'], zh: ['颜色'] },
  { id: 'editor', en: ['editor', 'editors', 'ide'], zh: ['编辑器'] },
  { id: 'timezone', en: ['timezone', 'timezones', 'tz'], zh: ['时区'] },
  { id: 'server', en: ['server', 'servers', 'host', 'hosts'], zh: ['服务器', '主机'] },
  { id: 'password', en: ['password', 'passwords', 'passphrase'], zh: ['密码'] },
  { id: 'birthday', en: ['birthday', 'birthdays', 'born'], zh: ['生日', '出生'] },
  { id: 'pet', en: ['pet', 'pets'], zh: ['宠物'] },
  { id: 'dog', en: ['dog', 'dogs', 'puppy'], zh: ['狗', '小狗'] },
  { id: 'cat', en: ['cat', 'cats', 'kitten'], zh: ['猫', '小猫'] },
  { id: 'coffee', en: ['coffee', 'espresso', 'latte'], zh: ['咖啡'] },
  { id: 'tea', en: ['tea', 'teas'], zh: ['茶'] },
  { id: 'music', en: ['music', 'song', 'songs'], zh: ['音乐', '歌'] },
  { id: 'guitar', en: ['guitar', 'guitars'], zh: ['吉他'] },
  { id: 'piano', en: ['piano', 'pianos'], zh: ['钢琴'] },
  { id: 'travel', en: ['travel', 'travels', 'traveled', 'trip', 'trips'], zh: ['旅行', '旅游'] },
  { id: 'japan', en: ['japan', 'japanese'], zh: ['日本'] },
  { id: 'project', en: ['project', 'projects'], zh: ['项目'] },
  { id: 'meeting', en: ['meeting', 'meetings', 'meet'], zh: ['会议', '开会'] },
  { id: 'deadline', en: ['deadline', 'deadlines', 'due'], zh: ['截止日期', '截止'] },
  { id: 'team', en: ['team', 'teams'], zh: ['团队'] },
  { id: 'version', en: ['version', 'versions'], zh: ['版本'] },
  { id: 'email', en: ['email', 'emails', 'mail'], zh: ['邮箱', '邮件'] },
  { id: 'phone', en: ['phone', 'phones', 'telephone'], zh: ['电话', '手机'] },
  { id: 'name', en: ['name', 'names', 'called'], zh: ['名字'] },
  { id: 'work', en: ['work', 'works', 'job', 'employer'], zh: ['工作'] },
  { id: 'food', en: ['food', 'eat', 'eats', 'dinner', 'lunch'], zh: ['食物', '吃'] },
  { id: 'book', en: ['book', 'books', 'novel', 'novels'], zh: ['书', '小说'] },
  { id: 'movie', en: ['movie', 'movies', 'film', 'films'], zh: ['电影'] },
  { id: 'car', en: ['car', 'cars', 'drive', 'drives'], zh: ['汽车', '车'] },
  { id: 'weather', en: ['weather', 'rain', 'sunny'], zh: ['天气'] },
  { id: 'sport', en: ['sport', 'sports', 'football', 'soccer'], zh: ['运动', '足球'] },
  { id: 'paint', en: ['paint', 'paints', 'painted', 'painting', 'paintings'], zh: ['画画', '绘画', '画'] },
  { id: 'family', en: ['family', 'mother', 'father', 'sister', 'brother'], zh: ['家人', '妈妈', '爸爸'] },
  { id: 'school', en: ['school', 'university', 'college'], zh: ['学校', '大学'] },
  { id: 'hobby', en: ['hobby', 'hobbies'], zh: ['爱好'] },
]

/** Words that carry no concept and add nothing to a vector. */
export const FAKE_STOPWORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'the',
  'is',
  'are',
  'was',
  'were',
  'be',
  'of',
  'on',
  'in',
  'at',
  'to',
  'for',
  'and',
  'or',
  'what',
  'which',
  'who',
  'does',
  'do',
  'did',
  'my',
  'our',
  'its',
  'it',
  'i',
  'we',
  's',
  'has',
  'have',
  '的',
  '是',
  '了',
  '吗',
  '呢',
  '在',
  '我',
  '我们',
  '什么',
  '多少',
  '哪个',
  '哪里',
  '用',
])
