"""Writes benchmarks/quality/answer_outcomes_dev.jsonl: the labelled answers the answer-outcome reader is
measured on (benchmarks/README.md, "Answer outcomes: the labelled set").

    python benchmarks/quality/answer_outcomes_dev_build.py

Every text here was written for this set (no public refusal or unanswerable-question data ships with
../shared/eval-data or a package this project can install; see the README). Each language has its
wordings in two families: ``dev`` (the reader was tuned while looking at these) and ``held_out`` (written
beside them in other words, read by the reader only to be measured): QUALITY.md reports both. A row is

    {"id", "text", "label": "abstained" | "answered" | "empty", "lang", "kind", "split"}

``kind``: refusal, refusal+courtesy, refusal+invisible (formatting or invisible characters around or
inside it), hedge+claim (declines, then claims something: must be answered), disclaimer+claim, yes/no,
short (a short answer), answer (a real answer, some with negations that look like refusals), empty.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

OUT = Path(__file__).resolve().parent / "answer_outcomes_dev.jsonl"

# -- English --------------------------------------------------------------------------------------------

EN_REFUSALS = {
    "dev": [
        "I don't know.",
        "I do not know the answer.",
        "I'm afraid I can't help with that.",
        "Sorry, that information isn't in the documents.",
        "The answer is not in the context.",
        "It is not mentioned.",
        "The context does not say.",
        "The provided context doesn't mention the discharge date.",
        "There is no information about the dosage in the documents.",
        "I'm sorry, I cannot answer that from the documents.",
        "Based on the provided context, I cannot determine when he left.",
        "This cannot be determined from the context.",
        "Not enough information.",
        "Unknown.",
        "N/A",
        "Not mentioned in the context.",
        "I'm not sure.",
        "I don't have enough information to answer this question.",
        "The documents do not contain that information.",
        "I couldn't find any information about the opening hours.",
        "I'm unable to answer that based on the given text.",
        "Unfortunately, the passages don't specify the price.",
        "There's no mention of the author in the sources.",
        "I have no idea.",
        "I cannot answer this question.",
        "The text doesn't state who won.",
        "The information is not available in the provided context.",
        "I don't know when the clinic opens on Sundays.",
        "I can't tell from the context.",
        "That is not something I can answer from the sources.",
        "No information is provided about the fees.",
        "The question cannot be answered with the given passages.",
        "I don't have access to that information.",
        "It's not possible to say from the context.",
        "None of the documents mention the warranty.",
        "The article makes no mention of the cost.",
        "Insufficient information.",
        "Cannot be determined.",
        "I was unable to find the answer in the documents.",
        "The retrieved passages do not address this question.",
    ],
    "more": [
        "Apologies, but I'm not able to answer that.",
        "The given context is silent on this.",
        "I really don't know, sorry.",
        "Hmm, I'm not certain.",
        "I could not locate the date in the text.",
        "The source material doesn't cover that topic.",
        "That detail isn't provided.",
        "Unanswerable.",
        "I can't confirm that from the documents.",
        "No answer.",
        "I'm afraid the context doesn't tell us.",
        "The excerpts don't include the name of the manager.",
        "Regrettably, I cannot determine the exact figure.",
        "It's unclear from the context.",
        "The passage does not indicate where it happened.",
        "I don't have that information. Please check with your pharmacist.",
        "There is not enough context to answer.",
        "As far as I can tell, the documents do not say.",
        "I'm not in a position to answer that.",
        "The answer isn't in the text.",
    ],
}
EN_HEDGED_CLAIMS = {
    "dev": [
        "I can't find the date, it was 12 March.",
        "There is no information about fees, so the service is free.",
        "Not that I know of, but it opens at 9.",
        "The context does not say, but it was Tuesday.",
        "I don't know. He was discharged on Thursday.",
        "I'm not sure, but I think the clinic opens at 8 am.",
        "I don't know exactly; it was around 40 people.",
        "The documents don't mention it, however the fee is 20 pounds.",
        "I can't say for sure, although the trains leave every 40 minutes.",
        "I'm not certain. The pool is 25 metres long.",
        "Sorry, I don't know the date, but the event was cancelled.",
        "I'm not sure why, but the museum closed in 2019.",
        "The text does not state the reason; the factory shut down.",
        "I cannot confirm this, yet the report says he resigned.",
        "I don't know the exact number and the hospital closed anyway.",
        "Unfortunately, the library is closed on Sundays.",
        "Based on the context, the answer is Tuesday.",
        "As far as I know, the clinic opens at 9.",
        "I can't say that I'm really objective.",
        "I can't say with certainty that Richard Giffe is innocent.",
    ],
    "more": [
        "I'm not 100% sure, but the deadline is Friday.",
        "Hard to say, maybe around 300 euros.",
        "I couldn't find the dose, it is probably 2 tablets.",
        "The context is unclear, which means the fee was waived.",
        "I don't know who signed it, though it was signed in Paris.",
        "The passage doesn't say much. She won the race.",
        "I'm unsure; the bridge is 2 km long.",
        "No mention of parking, so you can park anywhere.",
        "The documents are silent on prices, meaning it costs nothing.",
        "Honestly I don't know, it might be the mayor.",
    ],
}
EN_DISCLAIMERS = {
    "dev": [
        "I'm not a doctor. Take 500 mg of paracetamol every 6 hours.",
        "I am not a financial advisor, but you should invest 10% of your income.",
        "I can't give medical advice. Adults can take two 200 mg tablets every 4 to 6 hours.",
        "I don't know. Please take 500 mg every 6 hours.",
        "I'm sorry. The clinic opens at 9.",
    ],
    "more": [
        "I'm not a lawyer. You have 30 days to appeal.",
        "This is not legal advice: you can file the claim online.",
        "I cannot give a diagnosis. Drink plenty of water and rest for two days.",
        "Sorry. Your appointment is on Monday.",
    ],
}
EN_YES_NO = [
    "No.",
    "Yes.",
    "No",
    "Yes, it opens at 9.",
    "No, it isn't.",
    "Nope.",
    "Yes, definitely.",
    "No, the clinic is closed on Sundays.",
    "Correct.",
    "False.",
]
EN_SHORT = [
    "Tuesday.",
    "42",
    "Paris",
    "None.",
    "Nobody.",
    "Never.",
    "Zero.",
    "12 March 2021",
    "About 40 minutes.",
    "Dr. Patel.",
    "The red one.",
    "Nothing.",
    "Unknown gunmen.",
    "3 pm",
    "Not yet.",
]
EN_ANSWERS = [
    "The patient was discharged on Thursday.",
    "It was Tuesday.",
    "None of the patients died.",
    "No evidence of infection was found.",
    "There is no evidence of cancer.",
    "Unknown gunmen attacked the village.",
    "The records do not show any infection.",
    "There is no fee for children under 12.",
    "The drug is not known to cause cancer.",
    "It is not given to children under 12.",
    "Nobody knows who built the bridge, historians say.",
    "The report did not mention any casualties.",
    "\"I don't know whether the person I'm talking to now may end up being someone else,\" Parrish said.",
    "I am not sure if you can open a bank account in France if you are not a resident.",
    "The museum does not open on Mondays.",
    "The context is a letter written in 1952 by the mayor.",
    "The author says she cannot remember the exact date of the fire.",
    "The company could not find a buyer, so the factory closed.",
    "Information about the fees is on page 3.",
    "The question of funding is not answered by the council, which has delayed the vote twice.",
]
EN_EMPTY = [
    "",
    " ",
    "\n\t ",
    "\U0001f642\U0001f389",
    "?!...",
    "\u2014 \u2026",
    "***",
    "<p></p>",
    "\u200b",
    "\ufeff",
    "\u200f\u200e",
    "- - -",
    "```\n```",
    "\u00a0",
    "...",
]

# -- other languages: refusals (dev, held_out), hedged claims (dev, held_out), answers, yes/no -----------

OTHER: dict[str, dict[str, list[str]]] = {
    "fr": {
        "refusal_dev": [
            "Je ne sais pas.",
            "Le contexte ne le mentionne pas.",
            "Je n'ai pas cette information.",
            "Aucune idée.",
        ],
        "refusal_held": [
            "Je n'en sais rien.",
            "Cette information n'est pas précisée.",
            "Impossible de répondre.",
        ],
        "claim_dev": [
            "Je ne sais pas, mais il est parti mardi.",
            "Je ne suis pas sûr, la clinique ouvre à 9 h.",
        ],
        "claim_held": [
            "Le contexte ne le dit pas. Le prix est de 20 euros.",
            "Aucune idée, sauf que le musée est fermé.",
        ],
        "answers": [
            "Il n'est pas venu mardi.",
            "Le musée n'ouvre pas le lundi.",
            "La réunion a eu lieu à Lyon.",
        ],
        "yes_no": ["Non.", "Oui."],
        "courtesy": ["Désolé, "],
    },
    "es": {
        "refusal_dev": ["No lo sé.", "No sé.", "El contexto no lo menciona.", "No tengo esa información."],
        "refusal_held": ["No tengo ni idea.", "No se menciona en el texto.", "No puedo responder a eso."],
        "claim_dev": ["No lo sé, pero abre a las 9.", "No estoy seguro, pero creo que fue el martes."],
        "claim_held": [
            "El documento no lo dice. La tarifa es de 20 euros.",
            "Ni idea, aunque el museo cerró.",
        ],
        "answers": [
            "No se registraron muertes.",
            "El paciente no se encuentra en el hospital.",
            "La clínica abre a las ocho.",
        ],
        "yes_no": ["No.", "Sí."],
        "courtesy": ["Lo siento, "],
    },
    "de": {
        "refusal_dev": [
            "Ich weiß es nicht.",
            "Weiß ich nicht.",
            "Der Kontext erwähnt das nicht.",
            "Keine Ahnung.",
        ],
        "refusal_held": [
            "Ich bin mir nicht sicher.",
            "Das steht nicht im Text.",
            "Dazu kann ich nichts sagen.",
        ],
        "claim_dev": [
            "Ich weiß es nicht, aber es war Dienstag.",
            "Keine Ahnung, die Klinik öffnet um 9 Uhr.",
        ],
        "claim_held": [
            "Das steht nicht im Text. Die Gebühr beträgt 20 Euro.",
            "Ich bin mir nicht sicher, doch er ist gestern abgereist.",
        ],
        "answers": [
            "Er weiß nicht, wo sie wohnt.",
            "Das Museum ist montags nicht geöffnet.",
            "Der Zug fährt alle 40 Minuten.",
        ],
        "yes_no": ["Nein.", "Ja."],
        "courtesy": ["Tut mir leid, "],
    },
    "zh": {
        "refusal_dev": ["我不知道。", "上下文中没有提到。", "没有相关信息。", "我无法回答这个问题。"],
        "refusal_held": ["不清楚。", "文档中并未提及出院日期。", "我不确定。"],
        "claim_dev": ["我不知道，但是他周二出院了。", "上下文没有提到，不过诊所九点开门。"],
        "claim_held": ["我不确定。价格是二十元。", "不知道，所以是免费的。"],
        "answers": ["他没有提到价格。", "东京是日本的首都。", "医院不能提供床位。"],
        "yes_no": ["不是。", "是的。"],
        "courtesy": ["抱歉，"],
    },
    "ar": {
        "refusal_dev": [
            "لا أعرف.",
            "لا أعلم.",
            "لا توجد معلومات في السياق.",
            "لا يمكنني الإجابة عن هذا السؤال.",
        ],
        "refusal_held": ["لا أدري.", "النص لا يذكر ذلك.", "ليس لدي معلومات عن ذلك."],
        "claim_dev": ["لا أعرف، لكن العيادة تفتح في التاسعة.", "لست متأكدا، لكنه غادر يوم الثلاثاء."],
        "claim_held": ["النص لا يذكر ذلك. السعر عشرون دولارا.", "لا أدري، لذلك الخدمة مجانية."],
        "answers": ["لا يوجد رسوم للأطفال.", "غادر المريض يوم الخميس.", "المتحف مغلق يوم الاثنين."],
        "yes_no": ["لا.", "نعم."],
        "courtesy": ["عذراً، "],
    },
    "pt": {
        "refusal_dev": [
            "Não sei.",
            "Eu não sei.",
            "O contexto não menciona isso.",
            "Não tenho essa informação.",
        ],
        "refusal_held": ["Não faço ideia.", "Não é mencionado no texto.", "Não consigo responder a isso."],
        "claim_dev": ["Não sei, mas abre às 9.", "Não tenho certeza, mas foi na terça-feira."],
        "claim_held": ["O texto não diz. A taxa é de 20 reais.", "Não sei, então o serviço é gratuito."],
        "answers": ["Não houve mortes.", "O museu não abre às segundas.", "A clínica abre às oito."],
        "yes_no": ["Não.", "Sim."],
        "courtesy": ["Desculpe, "],
    },
    "hi": {
        "refusal_dev": [
            "मुझे नहीं पता।",
            "मैं नहीं जानता।",
            "संदर्भ में इसका उल्लेख नहीं है।",
            "मुझे इसके बारे में जानकारी नहीं है।",
        ],
        "refusal_held": ["पता नहीं।", "मैं इसका उत्तर नहीं दे सकता।", "मुझे यकीन नहीं है।"],
        "claim_dev": ["मुझे नहीं पता, लेकिन क्लिनिक 9 बजे खुलता है।", "पता नहीं, लेकिन वह मंगलवार को गया था।"],
        "claim_held": ["मुझे यकीन नहीं है। शुल्क 20 रुपये है।", "मुझे नहीं पता, इसलिए सेवा मुफ्त है।"],
        "answers": [
            "उसे पता नहीं था कि क्लिनिक बंद है।",
            "संग्रहालय सोमवार को बंद रहता है।",
            "ट्रेन हर 40 मिनट में चलती है।",
        ],
        "yes_no": ["नहीं।", "हाँ।"],
        "courtesy": ["माफ़ कीजिए, "],
    },
    "ru": {
        "refusal_dev": ["Я не знаю.", "Не знаю.", "В контексте это не указано.", "Нет информации."],
        "refusal_held": ["Понятия не имею.", "Я не могу ответить на этот вопрос.", "Я не уверен."],
        "claim_dev": ["Я не знаю, но клиника открывается в 9.", "Не уверен, но он уехал во вторник."],
        "claim_held": [
            "В тексте не указано. Плата составляет 20 рублей.",
            "Не знаю, поэтому услуга бесплатна.",
        ],
        "answers": [
            "Он не уверен, что придёт.",
            "Музей не работает по понедельникам.",
            "Поезд ходит каждые 40 минут.",
        ],
        "yes_no": ["Нет.", "Да."],
        "courtesy": ["Извините, "],
    },
    "ja": {
        "refusal_dev": [
            "わかりません。",
            "分かりません。",
            "文書に記載されていません。",
            "その情報はありません。",
        ],
        "refusal_held": ["知りません。", "お答えできません。", "資料には記載がありません。"],
        "claim_dev": [
            "わかりませんが、診療所は9時に開きます。",
            "分かりません。でも彼は火曜日に退院しました。",
        ],
        "claim_held": [
            "記載されていませんが、料金は20ドルです。",
            "わかりません、しかし博物館は閉館しました。",
        ],
        "answers": [
            "博物館は月曜日に閉まっています。",
            "東京は日本の首都です。",
            "電車は40分ごとに出発します。",
        ],
        "yes_no": ["いいえ。", "はい。"],
        "courtesy": ["申し訳ありませんが、"],
    },
    "ko": {
        "refusal_dev": [
            "모르겠습니다.",
            "잘 모르겠어요.",
            "문서에 해당 정보가 없습니다.",
            "답변할 수 없습니다.",
        ],
        "refusal_held": ["모릅니다.", "알 수 없습니다.", "언급되어 있지 않습니다."],
        "claim_dev": ["모르겠습니다. 하지만 병원은 9시에 엽니다.", "잘 모르겠지만, 화요일에 퇴원했습니다."],
        "claim_held": ["정보가 없습니다. 그러나 요금은 20달러입니다.", "모르겠어요, 그래서 무료입니다."],
        "answers": [
            "박물관은 월요일에 문을 닫습니다.",
            "기차는 40분마다 출발합니다.",
            "그는 화요일에 퇴원했습니다.",
        ],
        "yes_no": ["아니요.", "네."],
        "courtesy": ["죄송합니다. "],
    },
    "it": {
        "refusal_dev": [
            "Non lo so.",
            "Il contesto non lo menziona.",
            "Non ho abbastanza informazioni.",
            "Nessuna idea.",
        ],
        "refusal_held": ["Non ne ho idea.", "Non è specificato.", "Non posso rispondere."],
        "claim_dev": ["Non lo so, ma apre alle 9.", "Non sono sicuro, però è partito martedì."],
        "claim_held": [
            "Il testo non lo dice. Il prezzo è di 20 euro.",
            "Non lo so, quindi il servizio è gratuito.",
        ],
        "answers": [
            "Il museo non apre il lunedì.",
            "Non ci sono stati morti.",
            "Il treno parte ogni 40 minuti.",
        ],
        "yes_no": ["No.", "Sì."],
        "courtesy": ["Mi dispiace, "],
    },
    "tr": {
        "refusal_dev": ["Bilmiyorum.", "Emin değilim.", "Bağlamda belirtilmemiş.", "Bu konuda bilgi yok."],
        "refusal_held": ["Fikrim yok.", "Bunu cevaplayamam.", "Metinde bahsedilmemiş."],
        "claim_dev": ["Bilmiyorum, ama klinik 9'da açılıyor.", "Emin değilim, fakat salı günü ayrıldı."],
        "claim_held": ["Belirtilmemiş. Ücret 20 lira.", "Bilmiyorum, ancak müze kapandı."],
        "answers": [
            "Müze pazartesi günleri kapalıdır.",
            "Tren her 40 dakikada bir kalkar.",
            "Hasta perşembe günü taburcu oldu.",
        ],
        "yes_no": ["Hayır.", "Evet."],
        "courtesy": ["Üzgünüm, "],
    },
    "id": {
        "refusal_dev": [
            "Saya tidak tahu.",
            "Tidak ada informasi.",
            "Konteks tidak menyebutkan hal itu.",
            "Tidak tahu.",
        ],
        "refusal_held": ["Saya tidak yakin.", "Saya tidak dapat menjawab pertanyaan itu.", "Entahlah."],
        "claim_dev": [
            "Saya tidak tahu, tetapi klinik buka jam 9.",
            "Tidak yakin, tapi dia pergi hari Selasa.",
        ],
        "claim_held": [
            "Tidak disebutkan. Biayanya 20 ribu rupiah.",
            "Saya tidak tahu, namun museum sudah tutup.",
        ],
        "answers": [
            "Dia tidak tahu jalan ke rumah sakit.",
            "Museum tutup pada hari Senin.",
            "Kereta berangkat setiap 40 menit.",
        ],
        "yes_no": ["Tidak.", "Ya."],
        "courtesy": ["Maaf, "],
    },
    "bn": {
        "refusal_dev": ["আমি জানি না।", "জানি না।", "এ বিষয়ে কোনো তথ্য নেই।", "আমার জানা নেই।"],
        "refusal_held": ["আমি নিশ্চিত নই।", "প্রসঙ্গে উল্লেখ নেই।", "আমি উত্তর দিতে পারছি না।"],
        "claim_dev": ["আমি জানি না, কিন্তু ক্লিনিক ৯টায় খোলে।", "জানি না, তবে তিনি মঙ্গলবার গিয়েছিলেন।"],
        "claim_held": ["আমি নিশ্চিত নই। ফি ২০ টাকা।", "তথ্য নেই, তাই সেবাটি বিনামূল্যে।"],
        "answers": ["জাদুঘর সোমবার বন্ধ থাকে।", "ট্রেন প্রতি ৪০ মিনিটে ছাড়ে।", "রোগী বৃহস্পতিবার ছাড়া পেয়েছেন।"],
        "yes_no": ["না।", "হ্যাঁ।"],
        "courtesy": ["দুঃখিত, "],
    },
    "vi": {
        "refusal_dev": ["Tôi không biết.", "Không có thông tin.", "Tôi không thể trả lời."],
        "refusal_held": ["Tôi không chắc.", "Điều này không được đề cập."],
        "claim_dev": ["Tôi không biết, nhưng phòng khám mở cửa lúc 9 giờ."],
        "claim_held": ["Tôi không chắc, tuy nhiên anh ấy đã rời đi hôm thứ Ba."],
        "answers": ["Anh ấy không biết đường đến bệnh viện.", "Bảo tàng đóng cửa vào thứ Hai."],
        "yes_no": ["Không.", "Có."],
        "courtesy": ["Xin lỗi, "],
    },
    "pl": {
        "refusal_dev": ["Nie wiem.", "Brak informacji.", "Nie mogę odpowiedzieć."],
        "refusal_held": ["Nie mam pojęcia.", "Nie jestem pewien."],
        "claim_dev": ["Nie wiem, ale klinika jest otwarta od 9."],
        "claim_held": ["Nie jestem pewna, jednak wyjechał we wtorek."],
        "answers": ["Muzeum jest zamknięte w poniedziałki.", "Pociąg odjeżdża co 40 minut."],
        "yes_no": ["Nie.", "Tak."],
        "courtesy": ["Przepraszam, "],
    },
    "nl": {
        "refusal_dev": ["Ik weet het niet.", "Geen idee.", "Geen informatie."],
        "refusal_held": ["Weet ik niet.", "Dat wordt niet vermeld."],
        "claim_dev": ["Ik weet het niet, maar de kliniek opent om 9 uur."],
        "claim_held": ["Geen idee, dus de dienst is gratis."],
        "answers": ["Het museum is op maandag gesloten.", "De trein vertrekt elke 40 minuten."],
        "yes_no": ["Nee.", "Ja."],
        "courtesy": ["Helaas, "],
    },
    "fa": {
        "refusal_dev": ["نمی\u200cدانم.", "اطلاعاتی ندارم.", "در متن ذکر نشده است."],
        "refusal_held": ["مطمئن نیستم.", "من نمی\u200cدانم."],
        "claim_dev": ["نمی\u200cدانم، اما کلینیک ساعت ۹ باز می\u200cشود."],
        "claim_held": ["مطمئن نیستم، ولی او سه\u200cشنبه رفت."],
        "answers": ["موزه دوشنبه\u200cها تعطیل است.", "قطار هر ۴۰ دقیقه حرکت می\u200cکند."],
        "yes_no": ["نه.", "بله."],
        "courtesy": ["متاسفم، "],
    },
    "sw": {
        "refusal_dev": ["Sijui.", "Sina uhakika."],
        "refusal_held": ["Hakuna taarifa."],
        "claim_dev": ["Sijui, lakini kliniki inafunguliwa saa 3."],
        "claim_held": ["Sina uhakika, lakini aliondoka Jumanne."],
        "answers": ["Makumbusho yamefungwa Jumatatu."],
        "yes_no": ["Hapana.", "Ndiyo."],
        "courtesy": ["Samahani, "],
    },
    "he": {
        "refusal_dev": ["אני לא יודע.", "אין מידע."],
        "refusal_held": ["אין לי מושג."],
        "claim_dev": ["אני לא יודע, אבל המרפאה נפתחת ב-9."],
        "claim_held": ["לא בטוח, אבל הוא עזב ביום שלישי."],
        "answers": ["הוא לא יודע איפה היא גרה.", "המוזיאון סגור בימי שני."],
        "yes_no": ["לא.", "כן."],
        "courtesy": ["סליחה, "],
    },
    "el": {
        "refusal_dev": ["Δεν ξέρω.", "Δεν αναφέρεται."],
        "refusal_held": ["Δεν είμαι σίγουρος."],
        "claim_dev": ["Δεν ξέρω, αλλά η κλινική ανοίγει στις 9."],
        "claim_held": ["Δεν είμαι σίγουρη, όμως έφυγε την Τρίτη."],
        "answers": ["Το μουσείο είναι κλειστό τη Δευτέρα."],
        "yes_no": ["Όχι.", "Ναι."],
        "courtesy": ["Λυπάμαι, "],
    },
}

# Written last, after the reader was tuned on everything above, and read by it once, to be measured (its
# misses were fixed after that: QUALITY.md gives the figures of that first reading).
HELD_OUT: dict[str, dict[str, list[str]]] = {
    "en": {
        "refusal": [
            "I'm sorry, but the provided documents don't contain the answer to your question.",
            "I don't see anything about that in the context.",
            "Nothing in the passages answers this.",
            "I'm not able to find that in the retrieved documents.",
            "Sadly I have no information on this topic.",
            "The question can't be answered from the given information.",
            "I'm not sure, sorry.",
            "The context provided does not include details about the refund policy.",
            "There is insufficient information in the context to answer this question.",
            "I do not have the information needed to answer.",
            "That isn't mentioned anywhere in the documents.",
            "It is not stated in the text.",
            "No idea, sorry.",
            "I don't know the answer to that.",
            "Unfortunately I couldn't find the opening times.",
            "The document doesn't provide that information.",
            "Sorry, I can't answer that.",
            "I am afraid I do not know.",
            "The answer cannot be found in the context.",
            "I can't determine the author's age from the passage.",
        ],
        "claim": [
            "I don't know, it's probably Tuesday.",
            "Sorry, I'm not sure. The fee is 15 dollars.",
            "The context doesn't say, so I assume it's free.",
            "I'm not certain, but I believe she resigned.",
            "I couldn't find it; the office is on the second floor.",
            "Not sure, maybe 3 days?",
            "There's no mention of a deposit, therefore none is required.",
            "I don't know the exact time but it starts in the morning.",
            "I'm not a pharmacist, but two tablets a day is the usual dose.",
            "The passage doesn't say. It was sunny.",
            "I don't remember exactly, it cost around 50 euros.",
            "I'm not sure; the answer is B.",
        ],
        "answer": [
            "No, the refund is not available after 30 days.",
            "Yes.",
            "The documents were not signed.",
            "Nobody was told about the change.",
            "It is not mentioned that the bridge was closed, but it was.",
            "The mayor does not know the answer, she told reporters.",
            "Not applicable to children.",
            "There was no information desk at the station.",
        ],
    },
    "fr": {
        "refusal": ["Je l'ignore.", "Le document ne précise pas cette information."],
        "claim": ["Je ne sais pas trop, mais c'est sans doute gratuit."],
    },
    "es": {
        "refusal": ["Lo desconozco.", "No dispongo de información sobre eso."],
        "claim": ["No lo sé, así que supongo que es gratis."],
    },
    "de": {
        "refusal": ["Das weiß ich leider nicht.", "Die Dokumente enthalten dazu keine Informationen."],
        "claim": ["Ich weiß es nicht genau, aber es kostet wohl nichts."],
    },
    "zh": {"refusal": ["我也不知道。", "资料里没有相关信息。"], "claim": ["我不太确定，可能是星期二。"]},
    "ar": {
        "refusal": ["لا أعرف الإجابة.", "لم يتم ذكر ذلك في النص."],
        "claim": ["لست متأكدا، ربما يوم الثلاثاء."],
    },
    "pt": {
        "refusal": ["Desconheço.", "Não há informação sobre isso no texto."],
        "claim": ["Não sei bem, talvez seja grátis."],
    },
    "hi": {"refusal": ["मुझे इसकी जानकारी नहीं है।", "मैं नहीं जानती।"], "claim": ["मुझे पक्का नहीं पता, शायद मंगलवार।"]},
    "ru": {
        "refusal": ["Этого я не знаю.", "В документах нет информации об этом."],
        "claim": ["Не знаю точно, наверное, во вторник."],
    },
    "ja": {
        "refusal": ["よくわかりません。", "申し訳ございませんが、分かりかねます。"],
        "claim": ["わかりませんが、たぶん火曜日です。"],
    },
    "ko": {
        "refusal": ["저는 모르겠습니다.", "해당 내용은 문서에 없습니다."],
        "claim": ["잘 모르겠지만 아마 화요일일 거예요."],
    },
    "it": {
        "refusal": ["Purtroppo non lo so.", "Il documento non contiene questa informazione."],
        "claim": ["Non lo so, forse è gratis."],
    },
    "tr": {
        "refusal": ["Maalesef bilmiyorum.", "Bu bilgi metinde yok."],
        "claim": ["Bilmiyorum, belki salı günü."],
    },
    "id": {
        "refusal": ["Maaf, saya tidak tahu.", "Informasi itu tidak ada dalam dokumen."],
        "claim": ["Saya tidak tahu, mungkin hari Selasa."],
    },
    "bn": {"refusal": ["দুঃখিত, আমি জানি না।", "এই তথ্য আমার জানা নেই।"], "claim": ["আমি জানি না, হয়তো মঙ্গলবার।"]},
    "vi": {
        "refusal": ["Xin lỗi, tôi không biết.", "Tài liệu không có thông tin này."],
        "claim": ["Tôi không biết, có lẽ là thứ Ba."],
    },
    "pl": {
        "refusal": ["Niestety nie wiem.", "W tekście nie podano tej informacji."],
        "claim": ["Nie wiem, chyba we wtorek."],
    },
    "nl": {
        "refusal": ["Dat weet ik niet.", "De tekst zegt daar niets over."],
        "claim": ["Ik weet het niet, misschien dinsdag."],
    },
    "fa": {
        "refusal": ["متاسفانه نمی‌دانم.", "اطلاعاتی در این مورد وجود ندارد."],
        "claim": ["نمی‌دانم، شاید سه‌شنبه."],
    },
    "sw": {"refusal": ["Samahani, sijui.", "Sina taarifa kuhusu hilo."], "claim": ["Sijui, labda Jumanne."]},
    "he": {"refusal": ["אני לא יודעת.", "אין מידע על כך במסמך."], "claim": ["אני לא יודע, אולי ביום שלישי."]},
    "el": {
        "refusal": ["Λυπάμαι, δεν ξέρω.", "Δεν υπάρχουν πληροφορίες γι' αυτό."],
        "claim": ["Δεν ξέρω, ίσως την Τρίτη."],
    },
    "uk": {
        "refusal": ["Я не знаю.", "На жаль, немає інформації."],
        "claim": ["Не знаю, можливо, у вівторок."],
    },
    "th": {"refusal": ["ฉันไม่ทราบ", "ไม่มีข้อมูลในเอกสาร"], "claim": ["ไม่แน่ใจ แต่น่าจะเป็นวันอังคาร"]},
    "ur": {
        "refusal": ["مجھے نہیں معلوم۔", "معذرت، مجھے پتہ نہیں۔"],
        "claim": ["مجھے نہیں معلوم، شاید منگل کو۔"],
    },
}

# Invisible and formatting characters around or inside an answer (a reader sees the same words).
WRAPPERS = {
    "bidi-rlm": "\u200f{}\u200f",
    "bidi-lrm": "\u200e{}",
    "bidi-embedding": "\u202b{}\u202c",
    "bidi-isolate": "\u2067{}\u2069",
    "bom": "\ufeff{}",
    "zero-width-space": "\u200b{}\u200b",
    "word-joiner": "\u2060{}",
    "markdown-bold": "**{}**",
    "markdown-italic": "_{}_",
    "markdown-quote": "> {}",
    "markdown-heading": "## {}",
    "markdown-list": "- {}",
    "html": "<p>{}</p>",
    "code": "`{}`",
    "arabic-mark": "\u061c{}",
}
INSIDE = {  # characters put inside the words
    "nbsp": lambda text: text.replace(" ", "\u00a0"),
    "soft-hyphen": lambda text: text.replace("o", "o\u00ad", 1),
    "zero-width-inside": lambda text: text.replace(" ", " \u200b"),
    "zwj-inside": lambda text: text[:2] + "\u200d" + text[2:],
    "curly-apostrophe": lambda text: text.replace("'", "\u2019"),
    "fullwidth": lambda text: text.translate({ord(c): ord(c) + 0xFEE0 for c in string.ascii_letters}),
}


def rows() -> list[dict]:
    found: list[dict] = []

    def add(text: str, label: str, lang: str, kind: str, split: str) -> None:
        found.append(
            {
                "id": f"{lang}-{len(found):04d}",
                "text": text,
                "label": label,
                "lang": lang,
                "kind": kind,
                "split": split,
            }
        )

    for texts in EN_REFUSALS.values():
        for text in texts:
            add(text, "abstained", "en", "refusal", "dev")
    for texts in EN_HEDGED_CLAIMS.values():
        for text in texts:
            add(text, "answered", "en", "hedge+claim", "dev")
    for texts in EN_DISCLAIMERS.values():
        for text in texts:
            add(text, "answered", "en", "disclaimer+claim", "dev")
    for text in EN_YES_NO:
        add(text, "answered", "en", "yes/no", "dev")
    for text in EN_SHORT:
        add(text, "answered", "en", "short", "dev")
    for text in EN_ANSWERS:
        add(text, "answered", "en", "answer", "dev")
    for text in EN_EMPTY:
        add(text, "empty", "en", "empty", "dev")
    # every wrapper around a dev refusal and a held-out one, and around a claim (which stays a claim)
    for position, wrapper in enumerate(WRAPPERS.values()):
        add(wrapper.format(EN_REFUSALS["dev"][position % 12]), "abstained", "en", "refusal+invisible", "dev")
        add(wrapper.format(EN_REFUSALS["more"][position]), "abstained", "en", "refusal+invisible", "dev")
        add(wrapper.format(EN_HEDGED_CLAIMS["dev"][position % 6]), "answered", "en", "hedge+claim", "dev")
    for position, inside in enumerate(INSIDE.values()):
        add(inside(EN_REFUSALS["dev"][position]), "abstained", "en", "refusal+invisible", "dev")
        add(inside(EN_REFUSALS["more"][position]), "abstained", "en", "refusal+invisible", "dev")
        add(inside(EN_HEDGED_CLAIMS["more"][position]), "answered", "en", "hedge+claim", "dev")

    for lang, texts in OTHER.items():
        courtesy = texts["courtesy"][0]
        for key, split in (("refusal_dev", "dev"), ("refusal_held", "dev")):
            for position, text in enumerate(texts[key]):
                add(text, "abstained", lang, "refusal", split)
                add(courtesy + text, "abstained", lang, "refusal+courtesy", split)
                wrapper = list(WRAPPERS.values())[(position + len(lang)) % len(WRAPPERS)]
                add(wrapper.format(text), "abstained", lang, "refusal+invisible", split)
        for key, split in (("claim_dev", "dev"), ("claim_held", "dev")):
            for text in texts[key]:
                add(text, "answered", lang, "hedge+claim", split)
                add(courtesy + text, "answered", lang, "hedge+claim", split)
        for text in texts["answers"]:
            add(text, "answered", lang, "answer", "dev")
        for text in texts["yes_no"]:
            add(text, "answered", lang, "yes/no", "dev")
    for lang, texts in HELD_OUT.items():
        for position, text in enumerate(texts["refusal"]):
            add(text, "abstained", lang, "refusal", "held_out")
            wrapper = list(WRAPPERS.values())[(position * 3 + len(found)) % len(WRAPPERS)]
            add(wrapper.format(text), "abstained", lang, "refusal+invisible", "held_out")
        for text in texts["claim"]:
            add(text, "answered", lang, "hedge+claim", "held_out")
        for text in texts.get("answer", []):
            add(text, "answered", lang, "answer", "held_out")
    return found


def main() -> int:
    written = rows()
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in written), encoding="utf-8")
    english = sum(row["lang"] == "en" for row in written)
    others = len({row["lang"] for row in written}) - 1
    print(f"{len(written)} rows, {english} English, {len(written) - english} in {others} other languages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
