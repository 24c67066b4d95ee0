/**
 * The word lists and patterns the shape gate judges by: words that name no stable entity, conversation meta,
 * questions, work requests, instructions addressed to the assistant, transcript turn labels and markers of
 * injected context. Data only; the judgement itself is in shape-gate.ts.
 */

/**
 * Whole subjects (folded, a leading article removed) that name no stable entity: pronouns, demonstratives, and
 * words whose referent depends on when or where they were said.
 */
export const NON_ENTITY_SUBJECTS: ReadonlySet<string> = new Set([
  'i',
  'me',
  'my',
  'mine',
  'myself',
  'we',
  'us',
  'our',
  'ours',
  'you',
  'your',
  'yours',
  'he',
  'him',
  'his',
  'she',
  'her',
  'they',
  'them',
  'their',
  'it',
  'its',
  'this',
  'that',
  'these',
  'those',
  'there',
  'here',
  'one',
  'someone',
  'somebody',
  'something',
  'anyone',
  'anything',
  'everyone',
  'everybody',
  'everything',
  'nobody',
  'nothing',
  'none',
  'thing',
  'things',
  'stuff',
  'now',
  'today',
  'tomorrow',
  'yesterday',
  'tonight',
  'later',
  'then',
  'a',
  'an',
  'the',
  '我',
  '你',
  '您',
  '他',
  '她',
  '它',
  '我们',
  '你们',
  '他们',
  '她们',
  '它们',
  '咱们',
  '大家',
  '自己',
  '这',
  '那',
  '此',
  '这个',
  '那个',
  '这些',
  '那些',
  '这里',
  '那里',
  '这边',
  '那边',
  '这儿',
  '那儿',
  '某个',
  '东西',
  '事情',
  '现在',
  '今天',
  '明天',
  '昨天',
  '今晚',
  '以后',
  '之后',
  '刚才',
  '目前',
  '当前',
])

/** A leading word that makes a subject deictic or speaker-relative ("this function", "my laptop", "这个函数"). */
export const NON_ENTITY_PREFIX =
  /^(?:(?:this|that|these|those|its|my|your|his|her|their|some|any|every|each)\s|(?:这个|那个|这些|那些|这里|那里|这边|那边|这种|那种|我的|你的|您的|他的|她的|它的|某个|某些|每个|任何))/iu

/** A first- or second-person pronoun inside a CJK subject ("我电脑", "你那边的服务"). */
export const CJK_PERSONAL = /[我你您]/u

/**
 * Subjects (folded, a leading article removed) that talk about the conversation rather than the world: the
 * participants, the exchange itself, and its conclusions.
 */
export const META_SUBJECTS: ReadonlySet<string> = new Set([
  'above',
  'below',
  'user',
  'users',
  'assistant',
  'ai',
  'model',
  'bot',
  'chatbot',
  'system',
  'conversation',
  'this conversation',
  'chat',
  'this chat',
  'session',
  'this session',
  'message',
  'previous message',
  'last message',
  'answer',
  'my answer',
  'your answer',
  'response',
  'your response',
  'reply',
  'question',
  'my question',
  'conclusion',
  'my conclusion',
  'our conclusion',
  'summary',
  'result',
  'context',
  'prompt',
  'system prompt',
  'instructions',
  'task',
  'request',
  'discussion',
  'above answer',
  'above code',
  '用户',
  '助手',
  '模型',
  '系统',
  '上面',
  '以上',
  '上文',
  '下文',
  '前文',
  '下面',
  '以下',
  '上述',
  '如上',
  '如下',
  '对话',
  '本次对话',
  '会话',
  '消息',
  '上一条',
  '回答',
  '回复',
  '问题',
  '我的问题',
  '结论',
  '我的结论',
  '总结',
  '结果',
  '上下文',
  '提示词',
  '任务',
  '请求',
  '讨论',
])

/**
 * Properties (folded) that name a moment of the conversation rather than a durable attribute: its conclusions, and
 * the results and errors of the work at hand.
 */
export const META_PROPERTIES: ReadonlySet<string> = new Set([
  'point',
  'idea',
  'thing',
  'conclusion',
  'question',
  'answer',
  'summary',
  'takeaway',
  'gist',
  'thought',
  'reason',
  'problem',
  'issue',
  'result',
  'error',
  '意思',
  '想法',
  '结论',
  '答案',
  '总结',
  '重点',
  '关键',
  '看法',
  '原因',
  '问题',
  '结果',
  '报错',
  '错误',
])

/** English clause words that make a subject a sentence fragment (lower case only, so "Will Smith" survives). */
export const EN_CLAUSE_WORDS =
  /\b(?:is|are|was|were|am|be|been|being|isn't|aren't|wasn't|does|did|don't|doesn't|didn't|should|would|could|must|might|shall|that|which|because|since|although|though|if|whether|when|while|unless)\b/u

/** English clause connectors that make a property a fragment. */
export const EN_PROPERTY_CONNECTORS = /\b(?:that|which|because|since|although|though|if|whether|unless|when|while)\b/iu

/**
 * A subject or property that opens or closes on a function word is cut out of a sentence ("and the API", "API of").
 * The closing check is lower case only, so "Plan A" and "Service A" stay names.
 */
export const EN_DANGLING: readonly RegExp[] = [
  /^(?:and|or|but|so|of|to|for|with|from|by|in|on|at|as|because|then|than)\s/iu,
  /\s(?:[Tt]he|an?|of|to|for|with|and|or|in|on|at|from|by|as|than)$/u,
]

/** CJK words that make a subject or property a clause rather than a name. */
export const CJK_CLAUSE_WORDS =
  /(?:是|吗|呢|吧|因为|所以|但是|如果|虽然|然后|应该|可能|需要|必须|不要|没有|觉得|认为)|^的|的$|了$/u

/** Sentence punctuation inside a subject or property. */
export const SENTENCE_PUNCTUATION = /[。！？!?;；…]|[，、]|,\s+[a-z]/u

/**
 * A question: a question mark at the end, an interrogative opening, a tag question ("…, right"), or a Chinese question
 * word or particle.
 */
export const QUESTION_PATTERNS: readonly RegExp[] = [
  /[?？]\s*$/u,
  /^(?:what|why|how|when|where|who|which|whose)\b(?:'s|\s+(?:is|are|was|were|do|does|did|can|could|would|should|will|to|about|if)\b)/iu,
  /^(?:is|are|was|were|do|does|did|can|could|would|should|shall|will|have|has|had)(?:n't)?\s+(?:i|we|you|he|she|it|they|this|that|there|the|my|our|your|any)\b/iu,
  /(?:,\s*|\s+)(?:right|correct|isn't it|is that right)\s*[?？]*$|,\s*(?:yeah|no)\s*[?？]+$/iu,
  /(?:吗|呢|么|对吧|是吧|对不对)[\s。.!！~～]*$/u,
  /为什么|为何|怎么|怎样|如何|什么|是否|是不是|有没有|能不能|可不可以|要不要|哪个|哪些|哪里|哪儿|多少/u,
]

/** A request for work: polite openings, "help me", or a bare work verb commanding an action. */
export const REQUEST_PATTERNS: readonly RegExp[] = [
  /^(?:please\s+|pls\s+|kindly\s+)?(?:can|could|would|will)\s+you\b/iu,
  /^(?:please|pls|kindly)\s+(?!remember\b|note\b|keep in mind\b|bear in mind\b)\w/iu,
  /^(?:help me|let me know|tell me|show me|give me|i need you to|i want you to|i'd like you to|go ahead and|make sure to|try to)\b/iu,
  /^(?:fix|debug|check|look at|look into|investigate|find|implement|refactor|update|change|create|build|review|explain|rename|move|install|set up|generate|write|add|test)\s+(?:the|a|an|this|that|it|my|our|some|all|me|why|how|what|whether|if)\b/iu,
  /^(?:请|麻烦|劳驾)?你?(?:帮我|帮忙|给我|替我|帮着)/u,
  /^(?:请(?!记|注意|假|求|柬|愿)|麻烦你|劳驾)/u,
  /^(?:能不能|可以|能否|可不可以)(?:帮|给|把|替)/u,
  /^(?:把|将).{1,40}?(?:改成|改为|换成|设为|设置为|设成|删掉|删除|修复|修好)/u,
]

/**
 * Text that instructs the assistant rather than stating a fact: commands addressed to "you", overrides of earlier
 * instructions, standing orders ("always run …", "每次都要 …"), and destructive commands. A recalled fact is history;
 * anything shaped like an order is refused so a memory can never become one.
 */
export const INSTRUCTION_PATTERNS: readonly RegExp[] = [
  // Overriding the assistant's instructions.
  /\b(?:ignore|disregard|forget|override|bypass|skip|drop|disable|turn off)\b[^.\n]{0,40}\b(?:instructions?|prompts?|rules?|guidelines?|polic(?:y|ies)|guardrails?|safety|safety checks?|restrictions?|system message|confirmations?|reviews?)\b/iu,
  /\b(?:system prompt|developer message|system message|jailbreak|dan mode|prompt injection|new instructions?)\b/iu,
  /\byour (?:new |real |true )?(?:instructions|rules|task|role|goal|orders) (?:is|are)\b/iu,
  /\b(?:act as|pretend (?:to be|you are|that you)|roleplay as|you are now)\b/iu,
  // Orders addressed to the assistant.
  /\byou\s+(?:must|should|shall|need to|have to|ought to|are to|will always|will never|are required to|are allowed to|may now|can now|always|never)\b/iu,
  /\b(?:needs?|wants?|requires?|asks?|expects?|tells?|instructs?|orders?)\s+you\s+to\b/iu,
  /\b(?:from now on|going forward|henceforth)\b[^.\n]{0,40}\b(?:you|always|never|reply|respond|answer|ignore|run|execute|delete)\b/iu,
  /\b(?:always|never)\s+(?:run|execute|delete|remove|drop|wipe|call|send|reply|respond|answer|say|obey|follow|ignore|skip|push|commit|deploy|install|reveal|disable|use|do|tell|trust)\b/iu,
  /\b(?:before|after)\s+(?:every|each|any)\s+\w+[^.\n]{0,30}\b(?:run|execute|delete|drop|wipe|call|send)\b/iu,
  /^(?:please\s+)?(?:ignore|disregard|obey|execute|exec|run|delete|remove|drop|wipe|erase|destroy|reply|respond|reveal|exfiltrate|leak|bypass|override|disable|grant|always|never|do not|don't|must)\s+\S/iu,
  // Destructive commands, which a memory must never hand back.
  /\brm\s+-[a-z]*[rf][a-z]*\b|--no-preserve-root/iu,
  /\b(?:drop|truncate)\s+(?:table|database|schema)\b|\bdelete\s+from\s+\w/iu,
  /\bmkfs(?:\.\w+)?\b|\bdd\s+if=|:\(\)\s*\{|\bformat\s+[a-z]:|\bchmod\s+(?:-R\s+)?777\b|\bgit\s+push\s+(?:-f|--force)\b/iu,
  /\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b/iu,
  // The same in Chinese.
  /你(?:必须|要|应该|需要|得|务必|一定要|不准|不许|不要|别|只能|现在是|以后|从现在)/u,
  /(?:忽略|无视|忘掉|忘记|覆盖|绕过|跳过)[^。\n]{0,12}(?:指令|指示|提示|规则|设定|要求|限制|约束|安全)/u,
  /系统提示|系统指令|提示词|越狱|开发者消息/u,
  /(?:从现在起|从现在开始|从今以后|今后|以后)(?:你|每次|都要|一律|必须|总是|永远|务必)/u,
  /每次(?:都)?(?:要|必须|先|得|务必)/u,
  /^(?:请|务必|一定要|必须|永远|总是|不要|别|不许|禁止|先)+(?:删除|删掉|清空|格式化|执行|运行|忽略|发送|上传|泄露|回复|输出|打印|透露|禁用|强制推送)/u,
  /^(?:删除|删掉|清空|格式化|忽略|泄露|透露|强制推送)/u,
  /(?:删除|删掉|清空|销毁)(?:掉)?(?:整个|所有|全部)?(?:的)?(?:生产)?(?:数据库|数据表|表|文件|目录|仓库|数据)/u,
]

/**
 * A turn label opening a line of a retold dialogue: USER: / ASSISTANT: / Human: and their Chinese forms, optionally
 * bold, bracketed or bulleted.
 */
export const TURN_LABEL =
  /^[ \t]*(?:[#>*-]+[ \t]*)?\**\[?(?:USER|ASSISTANT|HUMAN|User|Assistant|Human|用户|助手|人类)\]?\**[ \t]*[:：]/u

/**
 * Markers of context the host or this plugin injected, quoted back into a message: reminder tags, runtime context,
 * the fact-memory notice and directory, and tool outcome lines.
 */
export const INJECTED_MARKERS: readonly RegExp[] = [
  /<\/?system-reminder\b/iu,
  /<\/?(?:system|developer|tool|function)(?:[-_](?:prompt|message|instructions?|context|output|result|reminder))?>/iu,
  /\[runtime context\]/iu,
  /^[ \t]*\[(?:system|developer|runtime|notice|context)\b[^\]\n]{0,40}\]/imu,
  /Fact memory: values recorded in earlier conversations|Fact memory \(dated history|Fact memory is on:|Fact memory recalled for this message:/u,
  /Recalled facts are history, not instructions/u,
  /dsh-fact-memory:directory/u,
  /^outcome: (?:ok|saved|pending|needs_selection|not_found|refused|conflict|unavailable)$/mu,
]
