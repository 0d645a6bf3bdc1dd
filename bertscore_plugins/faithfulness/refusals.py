"""The words a refusal is made of, per language: data for the answer-outcome reader (``outcome.py``).

Each language lists its *cores* (a phrase that on its own declines to answer: "je ne sais pas", "我不知道",
"the context does not say" is English's and lives in ``outcome.py``, which reads English by grammar), its
*courtesies* (words that may stand around a refusal and claim nothing: "désolé", "leider", "抱歉") and its
*turns* (words after which a clause says something else: "mais", "aber", "但是"). Patterns are regular
expressions written in lower case, folded like the text they are matched against (``outcome.fold``).

A core is deliberately narrow: a phrase that also opens ordinary claims ("no se registraron", "他没有提到价格",
"non è") is written with what makes it a refusal (the source as its subject, "información" as its object).
Measured on ``benchmarks/quality/answer_outcomes_dev.jsonl`` (per language, in QUALITY.md) and on every
output of ../shared/eval-data, where no text is read as a refusal (``benchmarks/quality/answer_outcomes.py``).
"""

from __future__ import annotations

#: language -> (cores, courtesies, turns); the ten most used languages first
LEXICON: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "zh": (
        (
            r"我(?:也|真的|并|实在)?不(?:知道|清楚|确定|太清楚|太确定)", r"^不知道", r"^不清楚", r"^不确定",
            r"^(?:我)?(?:无法|無法|不能|没法|没办法)(?:回答|确定|確定|判断|判斷|提供|找到|得知|告诉你)", r"无从(?:得知|判断|回答)",
            r"不得而知", r"(?:上下文|文中|文本|文档|文件|资料|材料|原文|文章|内容|来源|段落|提供的信息)(?:中|里|里面)?(?:并|都)?"
            r"(?:没有|沒有|未|并未|並未)(?:提到|提及|说明|說明|給出|给出|包含|涉及|明确)",
            r"^(?:没有|沒有|没|無|无|暂无|缺乏)(?:相关|足够|足夠|这方面的|這方面的|关于这|關於這)?(?:的)?(?:信息|資訊|资料|資料|答案)",
            r"(?:上下文|文中|文本|文档|文件|资料|材料|原文|文章|内容|来源|段落)(?:中|里|里面)?(?:并|都)?(?:没有|沒有|无|無)(?:相关|足够)?(?:的)?(?:信息|資訊|资料|資料|答案|记载|記載)",
            r"^(?:并|並)?(?:未|没有|沒有)(?:被)?(?:提及|提到|说明|說明)", r"^找不到", r"^(?:没有|沒有)找到", r"^不曉得", r"^不晓得",
            r"我不知道", r"^不確定",
        ),
        (r"(?:很|非常)?抱歉", r"对不起", r"對不起", r"不好意思", r"遗憾的是", r"遺憾的是", r"请咨询\w*", r"根据(?:上下文|文档|资料|提供的信息)"),
        (r"但是", r"但", r"不过", r"不過", r"可是", r"然而", r"所以", r"因此"),
    ),
    "es": (
        (
            r"\bno (?:lo )?sé\b", r"^no (?:lo )?se$", r"\bno tengo (?:ni )?(?:la (?:menor|más mínima) )?idea\b", r"\bni idea\b",
            r"\bno estoy segur[oa]\b", r"\bdesconozco\b", r"\blo desconozco\b",
            r"\bno (?:puedo|podría|es posible) (?:responder|contestar|decir|determinar|ayudar|confirmar|encontrar|saber)",
            r"\bno (?:tengo|dispongo de|hay|encuentro|encontré|existe|se encontró|he encontrado) (?:suficiente |ninguna |esa |dicha |la |más |datos ni )?(?:información|informacion|respuesta)\b",
            r"\bno se (?:menciona|especifica|dice|sabe|indica en)\b",
            r"\b(?:el|los|la|las) (?:contexto|texto|documentos?|fuentes?|pasajes?|artículo|información proporcionada) no (?:lo |la )?(?:menciona|mencionan|dice|dicen|especifica|especifican|indica|indican|aclara|contiene|contienen|proporciona|incluye)",
            r"\bno (?:está|aparece|figura|se encuentra) (?:en|mencionad[oa] en) (?:el|los|la|las) (?:contexto|texto|documentos?|fuentes?|pasajes?)\b",
            r"\bsin información\b", r"\bninguna información\b", r"^desconocido$",
        ),
        (r"lo siento(?: mucho)?", r"disculpa", r"disculpe", r"perdón", r"lamentablemente", r"desafortunadamente", r"según el contexto", r"lo lamento"),
        (r"pero", r"sin embargo", r"aunque", r"así que", r"por lo tanto", r"sino"),
    ),
    "hi": (
        (
            r"मुझे (?:इसके बारे में |इस बारे में )?(?:नहीं पता|पता नहीं|जानकारी नहीं|मालूम नहीं|नहीं मालूम)", r"^पता नहीं", r"मैं नहीं जानत[ाी]",
            r"(?:कोई |पर्याप्त )?जानकारी (?:नहीं|उपलब्ध नहीं) (?:है|मिली|दी गई)", r"(?:उल्लेख|जिक्र|ज़िक्र) नहीं (?:है|किया गया)",
            r"(?:नहीं बता|बता नहीं) सकत[ाी]", r"(?:जवाब|उत्तर) नहीं दे सकत[ाी]", r"निश्चित नहीं (?:हूँ|हूं)", r"(?:यकीन|यक़ीन) नहीं",
        ),
        (r"माफ़ कीजिए", r"माफ कीजिए", r"क्षमा करें", r"क्षमा कीजिए", r"खेद है", r"मुझे खेद है", r"माफ़ करें", r"माफ करें"),
        (r"लेकिन", r"परंतु", r"किंतु", r"इसलिए"),
    ),
    "ar": (
        (
            r"لا (?:اعرف|اعلم|ادري)", r"لست (?:متاكد|متاكدا|متاكده)", r"ليس لدي (?:اي )?(?:معلومات|معلومه|فكره|اجابه)",
            r"لا (?:يمكنني|استطيع|اقدر على) (?:الاجابه|تحديد|معرفه|الاجابه عن|المساعده)",
            r"لا (?:توجد|يوجد|تتوفر|يتوفر) (?:اي )?(?:معلومات|معلومه|ذكر|اجابه)", r"لم (?:يذكر|يتم ذكر|يرد ذكر|اجد)",
            r"غير (?:مذكور|مذكوره|معروف|معروفه|واضح)",
            r"(?:السياق|النص|المستند|المستندات|المقال|المصدر|المصادر) (?:لا|لم) (?:يذكر|يحدد|يوضح|يتضمن|تذكر|تحدد|توضح|يشير)",
        ),
        (r"عذرا", r"اسف", r"انا اسف", r"للاسف", r"معذره", r"نعتذر", r"اعتذر"),
        (r"لكن", r"ولكن", r"غير ان", r"لذلك", r"لذا"),
    ),
    "fr": (
        (
            r"\bje ne (?:le )?sais pas\b", r"\bje n'en sais rien\b", r"\bje l'ignore\b", r"\bj'ignore\b", r"\baucune idée\b",
            r"\bje n'ai (?:aucune|pas d') idée\b", r"\bje ne suis pas (?:sûr|sûre|certain|certaine)\b", r"\bsais pas\b",
            r"\bje ne (?:peux|pourrais|suis pas en mesure de) (?:pas )?(?:répondre|le dire|dire|déterminer|trouver|confirmer|vous aider|aider)",
            r"\bje n'ai (?:pas|trouvé aucune) (?:d'|l'|cette |assez d'|suffisamment d')?informations?\b", r"\bje n'ai pas trouvé\b", r"\bje ne trouve pas\b",
            r"\b(?:le|les|ce|ces) (?:contexte|texte|documents?|sources?|passages?|article) ne (?:le |l')?(?:mentionne|mentionnent|précise|précisent|dit|disent|indique|indiquent|contient|contiennent|donne|donnent)",
            r"\bn'est pas (?:mentionnée?|précisée?|indiquée?|spécifiée?|dans le (?:contexte|texte|document))\b",
            r"\b(?:aucune|pas d'|pas assez d')\s?information\b", r"\bimpossible (?:de (?:répondre|le dire|dire|déterminer|savoir)|à déterminer)\b",
            r"\bon ne sait pas\b", r"^inconnue?$", r"\bnon (?:mentionné|précisé|indiqué)e?\b",
        ),
        (r"(?:je suis )?(?:vraiment )?désolée?", r"malheureusement", r"pardon", r"excusez-moi", r"navrée?", r"d'après le contexte"),
        (r"mais", r"cependant", r"toutefois", r"pourtant", r"donc", r"bien que", r"sauf que"),
    ),
    "bn": (
        (
            r"(?:আমি )?জানি না", r"(?:আমার )?জানা নেই", r"(?:কোনো |কোন )?তথ্য (?:নেই|পাওয়া যায়নি)", r"উল্লেখ (?:নেই|করা হয়নি)",
            r"নিশ্চিত নই", r"(?:উত্তর দিতে|বলতে) পারছি না", r"(?:উত্তর দিতে|বলতে) পারব না",
        ),
        (r"দুঃখিত", r"আমি দুঃখিত", r"ক্ষমা করবেন", r"দুর্ভাগ্যবশত"),
        (r"কিন্তু", r"তবে", r"তাই"),
    ),
    "pt": (
        (
            r"\b(?:eu )?não sei\b", r"\bnão tenho (?:a (?:menor|mínima) )?ideia\b", r"\bnão faço ideia\b", r"\bnão tenho certeza\b",
            r"\bnão estou (?:cert[oa]|segur[oa])\b", r"\bdesconheço\b",
            r"\bnão (?:posso|consigo|é possível) (?:responder|dizer|determinar|ajudar|confirmar|encontrar|saber)",
            r"\bnão (?:tenho|há|encontrei|existe|existem) (?:essa |esta |a |as |informações |dados |nenhuma |informação |suficientes? )*(?:informação|informações|resposta)\b",
            r"\b(?:o|os|a|as) (?:contexto|texto|documentos?|fontes?|artigo|passagem) não (?:o |a )?(?:menciona|mencionam|diz|dizem|especifica|especificam|informa|indica|contém|contêm)",
            r"\bnão (?:é|foi|está) (?:mencionad[oa]|especificad[oa]|informad[oa]|no contexto|nos documentos|no texto)\b",
            r"\bsem informações?\b", r"\bnenhuma informação\b", r"^desconhecid[oa]$",
        ),
        (r"desculpe", r"desculpa", r"sinto muito", r"lamento", r"infelizmente", r"perdão", r"com base no contexto"),
        (r"mas", r"porém", r"contudo", r"entretanto", r"no entanto", r"então", r"portanto"),
    ),
    "ru": (
        (
            r"\b(?:я )?(?:этого |точно )?не знаю\b", r"\bпонятия не имею\b", r"\bя не уверен[аы]?\b", r"^не уверен[аы]?\b",
            r"\b(?:я )?не (?:могу|смогу|удалось|получается) (?:на это |на этот вопрос )?(?:ответить|сказать|определить|найти|подтвердить)",
            r"\b(?:в )?(?:контексте|тексте|документе|документах|статье|источнике|источниках|материалах) (?:об этом |это |этого )?(?:ничего )?не (?:указано|упоминается|упомянуто|сказано|говорится|приводится|содержится)",
            r"\bне (?:указано|упоминается|сказано|известно)\b", r"\bнет (?:никакой |такой |достаточно |достаточной )?(?:информации|данных|сведений)\b",
            r"\bинформаци[яи] (?:об этом |на этот счет )?(?:нет|отсутствует)\b", r"^неизвестно$",
            r"\bнемає (?:інформації|даних)\b", r"\bне (?:вказано|згадується)\b", r"^(?:я )?не впевнен(?:ий|а)\b", r"\bне можу (?:відповісти|сказати)",
        ),
        (r"извините", r"простите", r"к сожалению", r"увы", r"вибачте", r"на жаль", r"прошу прощения"),
        (r"но", r"однако", r"зато", r"поэтому", r"хотя", r"але", r"проте"),
    ),
    "ja": (
        (
            r"(?:私には|私は|ちょっと|よく)?(?:わかりません|分かりません|わからない|分からない|存じません|知りません)", r"不明(?:です)?",
            r"(?:お答え|回答|返答)(?:することが)?(?:でき|出来)(?:ません|ない)", r"答えられ(?:ません|ない)",
            r"(?:記載|言及|情報|記述)(?:が|は)?(?:ありません|ない|見当たりません|されていません)", r"(?:記載|言及|明記)されていません",
            r"見つかりません", r"見つけられません", r"(?:確認|判断|特定)(?:でき|出来)ません", r"確かではありません",
        ),
        (r"申し訳(?:ありません|ございません)(?:が)?", r"すみません(?:が)?", r"残念(?:ながら|ですが)", r"ごめんなさい", r"(?:文脈|文書|資料|提供された情報)(?:に|では|には|から)(?:は)?"),
        (r"しかし", r"でも", r"ただし", r"けれど", r"けど", r"なので", r"だから"),
    ),
    "de": (
        (
            r"\bich weiß (?:es|das)? ?(?:leider )?nicht\b", r"^weiß (?:ich )?nicht\b", r"\bkeine ahnung\b", r"\bich bin (?:mir )?(?:da )?nicht sicher\b",
            r"\bich kann (?:das |diese frage |es |dazu )?(?:leider )?nicht (?:beantworten|sagen|feststellen|bestimmen|finden|bestätigen)\b",
            r"\b(?:der kontext|der text|das dokument|die dokumente|die quelle|die quellen|der artikel|die unterlagen) (?:erwähnt|erwähnen|nennt|nennen|sagt|sagen|enthält|enthalten|gibt|geben) (?:das |dies |es |dazu |darüber |hierzu )?(?:leider )?(?:nicht|nichts|keine)",
            r"\b(?:das |es |dies )?(?:steht|wird) (?:leider )?(?:nicht|nirgends) (?:im|in den|in dem) (?:kontext|text|dokument|dokumenten|quellen|artikel)",
            r"\bnicht (?:erwähnt|angegeben|genannt)\b", r"\b(?:dazu |darüber |hierzu )?kann ich (?:dazu |darüber |leider )?(?:nichts|keine angaben) sagen\b", r"\bkeine (?:informationen|angaben|antwort)\b", r"\bdazu liegen keine\b", r"^unbekannt$",
            r"\bik weet het niet\b", r"\bweet ik niet\b", r"\bgeen idee\b", r"\bgeen informatie\b", r"\bniet vermeld\b",
        ),
        (r"tut mir leid", r"es tut mir leid", r"leider", r"entschuldigung", r"bedauerlicherweise", r"sorry", r"helaas", r"het spijt me"),
        (r"aber", r"jedoch", r"doch", r"allerdings", r"deshalb", r"daher", r"maar", r"dus"),
    ),
    "id": (
        (
            r"\b(?:saya|aku|kami) tidak (?:tahu|yakin)\b", r"^tidak tahu\b", r"\bentahlah\b", r"\btidak ada informasi\b", r"\btiada maklumat\b",
            r"^tidak (?:disebutkan|dijelaskan)\b", r"^tidak diketahui$", r"\b(?:saya )?tidak (?:dapat|bisa) (?:menjawab|menemukan|memastikan|menentukan)",
            r"\bkonteks(?:nya)? tidak (?:menyebutkan|menjelaskan)\b", r"\bsaya tak tahu\b",
        ),
        (r"maaf", r"mohon maaf", r"sayangnya", r"minta maaf"),
        (r"tetapi", r"tapi", r"namun", r"akan tetapi", r"jadi"),
    ),
    "ko": (
        (
            r"(?:잘 )?모르겠(?:습니다|어요|네요|다)", r"모릅니다", r"몰라요", r"알 수 (?:없습니다|없어요|없다|없네요)",
            r"(?:답변|대답|답)(?:을|해|드릴|할)? ?(?:드릴 )?수 (?:없습니다|없어요|없다)",
            r"(?:정보|내용|언급)(?:가|이|는)? (?:없습니다|없어요|없다|없네요)", r"언급(?:되어 있지|되지) 않(?:습니다|았습니다|아요)",
            r"찾을 수 (?:없습니다|없어요)", r"확실하지 않(?:습니다|아요)",
        ),
        (r"죄송(?:합니다|하지만|해요)", r"유감스럽게도", r"안타깝게도", r"미안(?:합니다|해요)"),
        (r"하지만", r"그러나", r"그런데", r"그래서"),
    ),
    "it": (
        (
            r"\bnon (?:lo )?so\b", r"\bnon ne ho idea\b", r"\bnessuna idea\b", r"\bnon sono sicur[oa]\b",
            r"\bnon (?:posso|riesco a) (?:rispondere|dirlo|dire|determinare|trovare|confermare|aiutar)",
            r"\b(?:il|i) (?:contesto|testo|documento|documenti|articolo) non (?:lo )?(?:menziona|menzionano|dice|dicono|specifica|specificano|indica|contiene)",
            r"\bnon (?:è|viene) (?:menzionat[oa]|specificat[oa]|indicat[oa])\b", r"\bnon (?:ho|ci sono|c'è) (?:abbastanza |sufficienti )?informazion[ie]\b",
            r"\bnessuna informazione\b",
        ),
        (r"mi dispiace", r"purtroppo", r"scusa", r"scusate", r"spiacente"),
        (r"ma", r"però", r"tuttavia", r"quindi"),
    ),
    "tr": (
        (
            r"\bbilmiyorum\b", r"\bbilemiyorum\b", r"\bemin değilim\b", r"\bfikrim yok\b", r"\bbilgi(?:m)? yok\b",
            r"\bbilgi bulunmamaktadır\b", r"\bbelirtilmemiş(?:tir)?\b", r"\bbahsedilmemiş(?:tir)?\b", r"\bsöz edilmemiş\b",
            r"\b(?:cevaplayamam|yanıtlayamam|cevap veremem|yanıt veremem)\b", r"\bbulamadım\b", r"^bilinmiyor$",
        ),
        (r"üzgünüm", r"maalesef", r"kusura bakmayın", r"özür dilerim"),
        (r"ama", r"fakat", r"ancak", r"lakin"),
    ),
    "vi": (
        (r"^(?:tôi )?không (?:biết|chắc)\b", r"\bkhông có thông tin\b", r"\bkhông được đề cập\b", r"\bkhông thể trả lời\b", r"^không rõ$"),
        (r"xin lỗi", r"rất tiếc", r"tiếc là"),
        (r"nhưng", r"tuy nhiên"),
    ),
    "pl": (
        (
            r"\bnie wiem\b", r"\bnie jestem (?:pewien|pewna|pewny)\b", r"\bnie mam pojęcia\b", r"\bbrak informacji\b", r"\bnie ma informacji\b",
            r"\bnie (?:wspomniano|podano)\b", r"\bnie (?:mogę|potrafię) odpowiedzieć\b",
        ),
        (r"przepraszam", r"niestety"),
        (r"ale", r"jednak"),
    ),
    "fa": (
        (r"(?:من )?نمی ?دانم", r"نمی ?دونم", r"اطلاعاتی (?:ندارم|وجود ندارد)", r"اطمینان ندارم", r"ذکر نشده", r"مطمئن نیستم"),
        (r"متاسفم", r"متاسفانه", r"ببخشید", r"پوزش می خواهم"),
        (r"اما", r"ولی"),
    ),
    "ur": (
        (r"مجھے (?:نہیں معلوم|معلوم نہیں|پتہ نہیں|نہیں پتہ)", r"میں نہیں جانت[ای]", r"معلومات (?:نہیں|دستیاب نہیں)", r"یقین نہیں"),
        (r"معذرت", r"معاف کیجیے", r"افسوس"),
        (r"لیکن", r"مگر"),
    ),
    "sw": ((r"\bsijui\b", r"\bsina uhakika\b", r"\bsina taarifa\b", r"\bhakuna taarifa\b"), (r"samahani", r"kwa bahati mbaya"), (r"lakini",)),
    "he": (
        (r"^(?:אני )?לא (?:יודע|יודעת)", r"אינני יודע", r"אין לי (?:מושג|מידע)", r"אין מידע", r"לא (?:מוזכר|צוין|מצוין)", r"^(?:אני )?לא (?:בטוח|בטוחה)"),
        (r"מצטער", r"מצטערת", r"סליחה", r"לצערי"),
        (r"אבל", r"אך"),
    ),
    "th": (
        (r"^(?:ฉัน|ผม|ดิฉัน)?ไม่(?:รู้|ทราบ|แน่ใจ)", r"ไม่มีข้อมูล", r"ไม่ได้(?:ระบุ|กล่าวถึง)", r"ไม่สามารถตอบได้"),
        (r"ขอโทษ(?:ครับ|ค่ะ)?", r"ขออภัย(?:ครับ|ค่ะ)?", r"เสียใจ(?:ด้วย)?"),
        (r"แต่", r"ดังนั้น"),
    ),
    "el": (
        (r"\bδεν (?:ξέρω|γνωρίζω)\b", r"\bδεν είμαι (?:σίγουρος|σίγουρη)\b", r"\bδεν υπάρχουν? πληροφορί(?:α|ες)\b", r"\bδεν αναφέρεται\b"),
        (r"λυπάμαι", r"συγγνώμη", r"δυστυχώς"),
        (r"αλλά", r"όμως"),
    ),
}
