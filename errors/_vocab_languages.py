"""The commonest error words in Chinese, Japanese, Russian, Spanish, German, French and
Portuguese, and the first of Polish, Italian, Turkish, Korean, Swedish, Czech and Vietnamese.

Source of truth: `tests/errors/corpus/foreign_phrases.jsonl` — real texts in those languages,
each with where it was seen: messages quoted in issue threads and help pages (Windows socket
errors, cloud APIs, browsers) and the translated catalogues software ships (glibc, git, apt,
MariaDB, Spring Security, Laravel, Rails). Each row below is a short core of such texts, so it
also meets the wordings around it ("请求过于频繁" and "访问太频繁" both say 频繁); a test checks
that every row occurs in the collected texts of its language (those phrases, or the held-out
sets `tests/errors/corpus/unseen_*.jsonl`). Phrases in other scripts are found inside the
text, since Chinese and Japanese put no spaces between words; a phrase that ends mid-word
("nieprawidłow") meets all its endings.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["TERMS"]


def said(
    lang: str, signal: S, *phrases: str, connect: bool = False, weak: bool = False
) -> tuple[Term, ...]:
    """Rows for `phrases` of language `lang` that say `signal` (`weak`: a general cue — as
    "try again later" is in every language: advice many errors add, whatever their cause)."""
    why = f"{lang}: real texts in tests/errors/corpus/foreign_phrases.jsonl"
    return tuple(term(p, signal, why, connect=connect, literal=True, weak=weak) for p in phrases)


TERMS: tuple[Term, ...] = (
    # Chinese, simplified and traditional
    *said("zh", S.TIMEOUT, "超时", "超過時間", "逾時", "没有正确答复", "无响应", "连接尝试失败"),
    *said("zh", S.RATE_LIMIT, "频繁", "调用频率", "频率上限", "流控", "并发数过高"),
    *said("zh", S.LATER, "稍后再试", "稍后重试", "稍候再試", "暂时不可用", "暫時無法", weak=True),
    *said("zh", S.NOT_FOUND, "找不到", "未找到", "不存在"),
    *said("zh", S.FORBIDDEN, "拒绝访问", "访问被拒绝", "拒絕存取", "您无权", "禁止"),
    *said("zh", S.BAD_REQUEST, "参数错误", "格式错误", "参数异常", "参数缺失", "不能为空"),
    *said("zh", S.NETWORK, "积极拒绝", "拒绝了我们的连接", "无法连接", "未能连接", connect=True),
    *said("zh", S.NETWORK, "中断", "没有监听"),
    *said("zh", S.NETWORK, "强迫关闭", "连接失败", "无法访问此网站"),
    *said("zh", S.SERVER, "服务器错误", "服务不可用"),
    *said("zh", S.CAPACITY, "系统繁忙", "服务器繁忙"),
    *said("zh", S.BAD_CREDENTIALS, "密码错误", "未授权", "未經授權", "未登录"),
    *said("zh", S.EXISTS, "已存在", "违反唯一约束"),
    *said("zh", S.CONFLICT, "资源冲突", "锁定", "鎖定", "正在使用此文件", "正由另一进程使用"),
    *said("zh", S.DISK_FULL, "磁盘已满", "磁盘空间不足", "设备上没有剩余空间", "设备上没有空间"),
    *said("zh", S.OUT_OF_MEMORY, "内存不足", "显存不足", "显存不够", "無法配置記憶體"),
    *said("zh", S.OUT_OF_MEMORY, "存储空间不足，无法处理此命令"),  # Windows: not enough memory
    *said("zh", S.QUOTA, "余额不足", "配额", "配額", "超过每天限量", "欠费", "充值"),
    # Japanese
    *said("ja", S.TIMEOUT, "タイムアウト", "応答時間が長すぎ", "長時間応答が無かった"),
    *said(
        "ja", S.RATE_LIMIT, "リクエストが多すぎ", "リクエストが多数", "短期間に集中", "レート制限"
    ),
    *said(
        "ja",
        S.LATER,
        "もう一度お試し",
        "再度お試し",
        "改めてお試し",
        "一時的に利用できません",
        weak=True,
    ),
    *said("ja", S.LATER, "メンテナンス中", weak=True),
    *said("ja", S.NOT_FOUND, "見つかりません", "存在しません", "該当データがありません"),
    *said("ja", S.FORBIDDEN, "アクセスが拒否", "権限がありません", "禁止されています"),
    *said("ja", S.FORBIDDEN, "許可がありません"),
    *said("ja", S.BAD_REQUEST, "必須", "不正です", "無効な"),
    *said(
        "ja", S.NETWORK, "接続が拒否されました", "接続できません", "接続できなかった", connect=True
    ),
    *said("ja", S.NETWORK, "アクセスできません", "通信に失敗", "ネットワーク接続がありません"),
    *said("ja", S.SERVER, "サーバーエラー", "サービスは利用できません", "不正なゲートウェイ"),
    *said("ja", S.BAD_CREDENTIALS, "認証に失敗", "認証が失敗", "パスワードが正しくありません"),
    *said("ja", S.BAD_CREDENTIALS, "認証されていません"),
    *said("ja", S.MISSING_KEY, "認証が必要"),
    *said("ja", S.EXISTS, "すでに存在", "重複", "既にデータが登録", "が存在します"),
    *said("ja", S.DISK_FULL, "空きスペースがありません", "ストレージ不足", "ディスク領域不足"),
    *said("ja", S.DISK_FULL, "空き領域がありません"),
    *said(
        "ja", S.OUT_OF_MEMORY, "メモリが不足", "メモリを使い果たしました", "メモリを確保できません"
    ),
    *said("ja", S.OUT_OF_MEMORY, "メモリの割り当てに失敗"),
    *said("ja", S.CONFLICT, "ロック", "ビジー状態"),
    *said("ja", S.QUOTA, "上限", "制限を超過"),
    *said("ja", S.CAPACITY, "接続が多すぎます"),
    # Russian
    *said("ru", S.TIMEOUT, "время ожидания", "таймаут", "попытка установить соединение была"),
    *said("ru", S.RATE_LIMIT, "слишком много запросов", "слишком много попыток"),
    *said("ru", S.LATER, "попытку позже", "попробовать позже", "временно недоступ", weak=True),
    *said("ru", S.LATER, "подождите перед повторной", weak=True),
    *said("ru", S.NOT_FOUND, "не найден", "не существует", "нет такого файла"),
    *said("ru", S.FORBIDDEN, "доступ запрещен", "отказано в доступе", "недостаточно прав"),
    *said("ru", S.FORBIDDEN, "доступ ограничен"),
    *said("ru", S.BAD_REQUEST, "некорректный запрос", "недопустимый", "неправильный параметр"),
    *said("ru", S.BAD_REQUEST, "требуется"),
    *said("ru", S.NETWORK, "не удалось подключиться", "отверг запрос на подключение", connect=True),
    *said("ru", S.NETWORK, "соединение разорвано", "нет подключения", "соединение сброшено"),
    *said("ru", S.NETWORK, "разорвал существующее подключение"),
    *said("ru", S.SERVER, "ошибка сервера", "внутренняя ошибка", "сервис недоступен"),
    *said("ru", S.BAD_CREDENTIALS, "не авторизован", "неверные учетные данные", "неверный пароль"),
    *said("ru", S.BAD_CREDENTIALS, "недопустимый api ключ", "неверный токен"),
    *said("ru", S.EXPIRED_TOKEN, "время сеанса истекло"),
    *said("ru", S.EXISTS, "уже существует", "уже используется", "файл существует"),
    *said("ru", S.DISK_FULL, "диск заполнен", "не осталось свободного места"),
    *said("ru", S.DISK_FULL, "недостаточно свободного места", "переполнение хранилища"),
    *said("ru", S.OUT_OF_MEMORY, "недостаточно памяти", "выделить память", "память исчерпана"),
    *said("ru", S.CONFLICT, "занят другим процессом", "используется другим процессом"),
    *said("ru", S.CONFLICT, "ресурс занят", "совместного доступа"),
    *said("ru", S.QUOTA, "превысил использование ресурса", "квота"),
    *said("ru", S.CAPACITY, "слишком много соединений"),
    # Spanish
    *said("es", S.TIMEOUT, "tiempo de espera", "caducó la conexión", "caducó el tiempo"),
    *said("es", S.TIMEOUT, "expiró el tiempo", "agotó el tiempo"),
    *said("es", S.RATE_LIMIT, "demasiadas solicitudes", "demasiadas peticiones"),
    *said("es", S.RATE_LIMIT, "demasiado rápido", "número de solicitudes"),
    *said("es", S.LATER, "más tarde", "temporalmente", "espere antes de intentar", weak=True),
    *said("es", S.NOT_FOUND, "no encontrado", "no existe", "no se encontró"),
    *said("es", S.FORBIDDEN, "prohibido", "prohibida", "denegada"),
    *said("es", S.FORBIDDEN, "suficientes permisos"),
    *said("es", S.BAD_REQUEST, "solicitud incorrecta", "no es válido", "malformado"),
    *said("es", S.BAD_REQUEST, "no puede ser nulo", "no válida", "invalido"),
    *said("es", S.NETWORK, "conexión denegada", "rechaza activamente", connect=True),
    *said("es", S.NETWORK, "denegó expresamente", "no se pudo conectar", connect=True),
    *said("es", S.NETWORK, "error al conectarse"),
    *said("es", S.SERVER, "error interno", "servicio no disponible", "error del servidor"),
    *said("es", S.SERVER, "mala puerta de enlace"),
    *said("es", S.BAD_CREDENTIALS, "no autorizado", "clave api no válida"),
    *said("es", S.EXPIRED_TOKEN, "token expirado"),
    *said("es", S.EXISTS, "ya existe", "escogido por otro usuario", "restriccion unica"),
    *said("es", S.DECLINED, "saldo suficiente"),
    *said("es", S.DISK_FULL, "disco lleno", "espacio insuficiente", "no queda espacio"),
    *said("es", S.DISK_FULL, "suficiente espacio libre"),
    *said("es", S.OUT_OF_MEMORY, "memoria agotada", "memoria insuficiente", "asignar memoria"),
    *said("es", S.OUT_OF_MEMORY, "reservar memoria"),
    *said("es", S.CONFLICT, "recurso ocupado", "no se pudo bloquear", "no puedo bloquear"),
    *said("es", S.QUOTA, "cuota"),
    *said("es", S.QUOTA, "excedido", "excedidas", weak=True),
    *said("es", S.CAPACITY, "demasiadas conexiones"),
    # German
    *said("de", S.TIMEOUT, "zeitüberschreitung", "wartezeit"),
    *said("de", S.RATE_LIMIT, "zu viele anfragen", "zu viele loginversuche"),
    *said("de", S.LATER, "später noch einmal", "bevor sie es erneut versuchen", weak=True),
    *said(
        "de", S.LATER, "zur zeit nicht verfügbar", "nicht zur verfügung", "bitte versuchen sie es"
    ),
    *said("de", S.NOT_FOUND, "nicht gefunden", "existiert nicht"),
    *said("de", S.FORBIDDEN, "verweigert", "verboten", "keine berechtigung"),
    *said("de", S.BAD_REQUEST, "ungültig", "darf nicht null sein", "muss ausgefüllt werden"),
    *said("de", S.NETWORK, "vom host abgelehnt", "verbindungsaufbau abgelehnt", connect=True),
    *said("de", S.NETWORK, "nicht aufgelöst", "keine route zum zielrechner", connect=True),
    *said("de", S.NETWORK, "nicht erreichbar", "verbindung wurde geschlossen"),
    *said("de", S.NETWORK, "verbindung", weak=True),  # inside compounds: "Datenbankverbindung"
    *said("de", S.SERVER, "interner fehler", "internen fehler", "interner server-fehler"),
    *said("de", S.SERVER, "service nicht verfügbar"),
    *said("de", S.BAD_CREDENTIALS, "nicht autorisiert", "ungültige anmeldedaten"),
    *said("de", S.BAD_CREDENTIALS, "authentifizierung fehlgeschlagen", "ungültiger api-schlüssel"),
    *said("de", S.MISSING_KEY, "anmeldung erforderlich"),
    *said("de", S.EXISTS, "existiert bereits", "bereits vergeben", "bereits vorhanden"),
    *said("de", S.EXISTS, "bereits in verwendung"),
    *said("de", S.DISK_FULL, "kein speicherplatz", "festplatte voll"),
    *said("de", S.DISK_FULL, "nicht genügend speicherplatz", "nicht genug platz"),
    *said("de", S.OUT_OF_MEMORY, "hauptspeicher", "kein speicher", "speicheranforderung"),
    *said("de", S.CONFLICT, "gesperrt", "ist belegt", "sperre", "sperren des"),
    *said("de", S.QUOTA, "ressourcenbeschränkung", "überschritten"),
    *said("de", S.CAPACITY, "zu viele verbindungen"),
    # French
    *said("fr", S.TIMEOUT, "délai d'attente", "délai de connexion dépassé", "hors délai"),
    *said("fr", S.TIMEOUT, "expiration du délai"),
    *said("fr", S.RATE_LIMIT, "trop de requêtes", "trop de demandes", "trop nombreuses"),
    *said("fr", S.RATE_LIMIT, "limite de taux"),
    *said("fr", S.LATER, "réessayer plus tard", "réessayer dans quelques instants", weak=True),
    *said("fr", S.LATER, "temporairement", "patienter avant de réessayer", weak=True),
    *said("fr", S.NOT_FOUND, "non trouvé", "introuvable", "n'existe pas", "ne pas exister"),
    *said("fr", S.FORBIDDEN, "interdit", "accès refusé", "n'êtes pas autorisé", "droits d'accès"),
    *said("fr", S.BAD_REQUEST, "invalide", "est requis", "est manquante"),
    *said("fr", S.NETWORK, "connexion refusée", "aucune connexion", connect=True),
    *said("fr", S.NETWORK, "nom ou service inconnu", connect=True),
    *said("fr", S.NETWORK, "connection au serveur a échoué", "est inaccessible"),
    *said("fr", S.SERVER, "erreur interne", "erreur de serveur", "service non disponible"),
    *said("fr", S.SERVER, "actuellement indisponible", "ne fonctionne pas"),
    *said("fr", S.BAD_CREDENTIALS, "non autorisé", "authentification a échoué"),
    *said("fr", S.EXPIRED_TOKEN, "session a expiré"),
    *said("fr", S.EXISTS, "existe déjà", "déjà utilisé", "fichier existe"),
    *said("fr", S.DISK_FULL, "aucun espace disponible", "disque plein", "espace insuffisant"),
    *said("fr", S.DISK_FULL, "pas assez d'espace"),
    *said("fr", S.OUT_OF_MEMORY, "manque de mémoire", "mémoire épuisée", "allouer de la mémoire"),
    *said("fr", S.OUT_OF_MEMORY, "allocation de mémoire"),
    *said("fr", S.CONFLICT, "verrou", "verrouiller", "ressource occupé"),
    *said("fr", S.QUOTA, "limite quotidienne"),
    *said("fr", S.CAPACITY, "trop de connexions"),
    # Portuguese
    *said("pt", S.TIMEOUT, "tempo limite", "tempo esgotado", "conexão expirou", "ligação expirada"),
    *said("pt", S.TIMEOUT, "tempo da ligação expirou"),
    *said("pt", S.RATE_LIMIT, "muitas solicitações", "demasiados pedidos", "muitas requisições"),
    *said("pt", S.RATE_LIMIT, "muitas tentativas", "limite de tentativas"),
    *said("pt", S.LATER, "tente novamente mais tarde", "temporariamente indisponível", weak=True),
    *said(
        "pt",
        S.LATER,
        "aguarde antes de tentar",
        "aguarde, antes de tentar",
        "manutenção",
        weak=True,
    ),
    *said("pt", S.NOT_FOUND, "não encontrad", "não existe", "não foi encontrad"),
    *said("pt", S.FORBIDDEN, "proibido", "acesso negado", "não é autorizada", "não permitida"),
    *said("pt", S.FORBIDDEN, "permissão negada", "acesso não autorizado"),
    *said("pt", S.BAD_REQUEST, "inválid", "obrigatóri", "mal formatado"),
    *said("pt", S.NETWORK, "conexão recusada", "ligação recusada", connect=True),
    *said(
        "pt", S.NETWORK, "não foi possível resolver", "nome ou serviço desconhecido", connect=True
    ),
    *said("pt", S.NETWORK, "rede inacessível"),
    *said("pt", S.SERVER, "erro do servidor", "erro interno", "serviço indisponível"),
    *said("pt", S.SERVER, "gateway inválido"),
    *said("pt", S.BAD_CREDENTIALS, "não autorizado", "token inválido", "autenticação inválida"),
    *said("pt", S.EXPIRED_TOKEN, "sessão expirou"),
    *said("pt", S.EXISTS, "já existe", "já está em uso", "arquivo existe", "ficheiro existe"),
    *said("pt", S.DISK_FULL, "armazenamento insuficiente", "espaço disponível", "espaço livre"),
    *said("pt", S.DISK_FULL, "espaço suficiente"),
    *said("pt", S.OUT_OF_MEMORY, "memória esgotada", "alocar memória"),
    *said("pt", S.CONFLICT, "recurso está ocupado", "recurso ocupado", "obter a trava"),
    *said("pt", S.CONFLICT, "acesso exclusivo", "sendo usado por outro processo"),
    *said("pt", S.QUOTA, "cota", "quota do disco"),
    *said("pt", S.RATE_LIMIT, "limite de requisições", "limite de consultas"),
    *said("pt", S.LATER, "aguarde", weak=True),
    *said("pt", S.BAD_CREDENTIALS, "assinatura inválida", "falha ao autenticar"),
    *said("pt", S.CAPACITY, "excesso de conexões"),
    # Polish, Italian, Turkish, Korean: the core words of real texts (the held-out sets)
    *said("pl", S.BAD_REQUEST, "nieprawidłow", "niepoprawne"),
    *said("pl", S.LATER, "tymczasowo niedostępn", "ponów próbę później", weak=True),
    *said("pl", S.BAD_CREDENTIALS, "dane autoryzacyjne", "dane dostępowe"),
    *said("it", S.BAD_REQUEST, "non valido", "non corrispondente"),
    *said("it", S.INVALID_INPUT, "validazione"),
    *said("tr", S.BAD_REQUEST, "geçersiz", "olmalıdır"),
    *said("ko", S.BAD_CREDENTIALS, "로그인 실패"),
    *said("ko", S.LATER, "다시 시도", weak=True),
    *said("ru", S.BAD_REQUEST, "неверн", weak=True),
    *said("es", S.FORBIDDEN, "denegado"),
    *said("es", S.NOT_FOUND, "no se encuentra"),
    *said("pt", S.EXISTS, "duplicidade"),
    *said("it", S.EXISTS, "già", weak=True),
    *said("it", S.BAD_REQUEST, "non deve"),
    *said("sv", S.BAD_REQUEST, "ogiltig"),
    *said("sv", S.MISSING_KEY, "saknas", weak=True),
    *said("zh", S.BAD_REQUEST, "不合法"),
    *said("zh", S.LATER, "明天再试", weak=True),
    *said("zh", S.QUOTA, "每日限制"),
    *said("zh", S.QUOTA, "可用额度"),  # credit (left) to spend
    *said("de", S.DISK_FULL, "speicherplatz"),
    *said("cs", S.FORBIDDEN, "odepřen"),
    *said("tr", S.BAD_DATA, "boş yanıt"),
    *said("vi", S.BAD_REQUEST, "không đúng", "không hợp lệ"),
    # Shorter cores, each meeting a family of wordings: 再试 in 稍后再试, 稍候再试, 请重新再试
    *said("zh", S.LATER, "再试", weak=True),
    *said("zh", S.FORBIDDEN, "权限", weak=True),  # 没有…的权限; advice, too: 有…权限
    *said("zh", S.EXISTS, "唯一性约束"),
    *said("zh", S.EXPIRED_TOKEN, "登录失效", "重新登录"),
    *said("zh", S.BAD_CREDENTIALS, "签名失败"),
    *said("zh", S.CAPACITY, "拥挤"),
    *said("ru", S.RATE_LIMIT, "количество запросов"),
    *said("ru", S.LATER, "позже", weak=True),
    *said("ru", S.BAD_DATA, "пустой ответ"),
    *said("pt", S.LATER, "tentar novamente", weak=True),
    *said("fr", S.LATER, "ultérieurement", weak=True),  # réessayer ultérieurement: later
    *said("fr", S.LATER, "indisponible", weak=True),
    *said("zh", S.GONE, "已被删除"),
    *said("it", S.BAD_REQUEST, "non corretto"),
)
