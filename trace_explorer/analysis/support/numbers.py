"""Numbers as answer support compares them: by value, whatever way they are written.

A number of a text is a ``Quantity``: its candidate values (a form such as "1.642" or "1,642"
is a thousand and more in one language and a decimal in another, so both are kept), the same in
a unit's base ("1.6 km" is 1600 m; "23 per cent" is 0.23), how precisely it is written (1.6
stands for 1.55 to 1.65; "about 547" admits a tenth either way), and its unit's dimension.

Written forms read here: digit groups joined by a comma, a point, a space, an apostrophe, a
no-break, thin or narrow no-break space ("5,642", "5.642", "5 642", "5'642", "5\u202f642"),
decimal points and commas, scale words ("25 million", "3,2 Mio.", "1.4 bn"), units and their
words in several languages ("m", "metres", "Meter", "км"; "%", "per cent", "Prozent"; "days",
"Tagen", "jours"), currency signs before or after, spelled-out numbers (own table for small
numbers in English, German, French, Spanish and Russian; text2num for the other words of the
languages it reads), and fractions ("a quarter", "two thirds", "half").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# unit key -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001), "cm": ("length", 0.01), "m": ("length", 1.0), "km": ("length", 1000.0),
    "mi": ("length", 1609.344), "ft": ("length", 0.3048), "in": ("length", 0.0254),
    "g": ("mass", 0.001), "kg": ("mass", 1.0), "t": ("mass", 1000.0), "lb": ("mass", 0.45359237),
    "%": ("ratio", 0.01), "‰": ("ratio", 0.001),
    "ms": ("time", 0.001), "s": ("time", 1.0), "min": ("time", 60.0), "h": ("time", 3600.0),
    "day": ("time", 86400.0), "week": ("time", 604800.0), "month": ("time", 2629800.0),
    "year": ("time", 31557600.0),
    "m²": ("area", 1.0), "km²": ("area", 1e6), "ha": ("area", 1e4),
    "l": ("volume", 1.0), "ml": ("volume", 0.001), "m³": ("volume", 1000.0),
    "kwh": ("energy", 1.0), "mwh": ("energy", 1e3), "gwh": ("energy", 1e6), "twh": ("energy", 1e9),
    "w": ("power", 1.0), "kw": ("power", 1e3), "mw": ("power", 1e6), "gw": ("power", 1e9),
    "kb": ("data", 1e3), "mb": ("data", 1e6), "gb": ("data", 1e9), "tb": ("data", 1e12),
    "°c": ("celsius", 1.0), "°f": ("fahrenheit", 1.0), "km/h": ("speed", 1 / 3.6), "mph": ("speed", 0.44704),
    "eur": ("money:eur", 1.0), "usd": ("money:usd", 1.0), "gbp": ("money:gbp", 1.0), "jpy": ("money:jpy", 1.0),
    "rub": ("money:rub", 1.0), "chf": ("money:chf", 1.0),
}

# written form (case-folded) -> unit key
_UNIT_FORMS: dict[str, str] = {}
for _unit, _forms in {
    "mm": "mm millimetre millimetres millimeter millimeters millimètre millimètres миллиметр миллиметров мм",
    "cm": "cm centimetre centimetres centimeter centimeters centimètre centimètres сантиметр сантиметров см",
    "m": "m metre metres meter meters mètre mètres metro metros метр метра метров метры м メートル",
    "km": "km kilometre kilometres kilometer kilometers kilomètre kilomètres kilómetro kilómetros "
          "километр километра километров км キロメートル",
    "mi": "mi mile miles meile meilen milla millas миля мили миль",
    "ft": "ft foot feet fuß",
    "g": "g gram grams gramm gramme grammes gramo gramos грамм граммов",
    "kg": "kg kilogram kilograms kilogramm kilogramme kilogrammes kilogramo kilogramos килограмм килограммов кг",
    "t": "tonne tonnes ton tons tonnen tonelada toneladas тонна тонны тонн",
    "lb": "lb lbs pound-weight",
    "%": "% percent pourcent prozent porcentaje porciento процент процента процентов パーセント per-cent "
         "pour-cent por-ciento",
    "ms": "ms millisecond milliseconds millisekunde millisekunden milliseconde millisecondes миллисекунд",
    "s": "sec second seconds sekunde sekunden seconde secondes segundo segundos секунда секунды секунд 秒",
    "min": "min mins minute minutes minuten minuto minutos минута минуты минут 分",
    "h": "h hr hrs hour hours stunde stunden heure heures hora horas час часа часов 時間",
    "day": "day days tag tage tagen jour jours día días dia dias день дня дней сутки суток 日",
    "week": "week weeks woche wochen semaine semaines semana semanas неделя недели недель 週間",
    "month": "month months monat monate monaten mois mes meses месяц месяца месяцев ヶ月 か月",
    "year": "year years yr yrs jahr jahre jahren jahres an ans année années año años год года лет 年",
    "km²": "km² km2 sq-km",
    "m²": "m² m2 sq-m",
    "ha": "ha hectare hectares hektar",
    "l": "l litre litres liter liters litro litros литр литра литров",
    "ml": "ml millilitre millilitres milliliter milliliters",
    "m³": "m³ m3",
    "kwh": "kwh", "mwh": "mwh", "gwh": "gwh", "twh": "twh terawattstunden terawattstunde terawatt-hours",
    "w": "watt watts", "kw": "kw kilowatt kilowatts", "mw": "mw megawatt megawatts", "gw": "gw gigawatt gigawatts",
    "kb": "kb", "mb": "mb megabyte megabytes", "gb": "gb gigabyte gigabytes", "tb": "tb terabyte terabytes",
    "°c": "°c ℃ celsius", "°f": "°f ℉ fahrenheit", "km/h": "km/h kmh", "mph": "mph",
    "eur": "€ eur euro euros", "usd": "$ usd dollar dollars us$", "gbp": "£ gbp", "jpy": "¥ jpy yen 円",
    "rub": "₽ rub рубль рубля рублей руб", "chf": "chf franken",
}.items():
    for _form in _forms.split():
        _UNIT_FORMS[_form] = _unit

# Words that multiply the number before them.
SCALES = {"thousand": 1e3, "thousands": 1e3, "tausend": 1e3, "mille": 1e3, "mil": 1e3, "тысяч": 1e3,
          "тысячи": 1e3, "тысяча": 1e3, "тыс": 1e3, "k": 1e3, "tsd": 1e3,
          "million": 1e6, "millions": 1e6, "millionen": 1e6, "millones": 1e6, "millón": 1e6, "mio": 1e6,
          "mn": 1e6, "миллион": 1e6, "миллиона": 1e6, "миллионов": 1e6, "млн": 1e6,
          "billion": 1e9, "billions": 1e9, "bn": 1e9, "milliard": 1e9, "milliards": 1e9, "milliarde": 1e9,
          "milliarden": 1e9, "mrd": 1e9, "миллиард": 1e9, "миллиарда": 1e9, "миллиардов": 1e9, "млрд": 1e9,
          "trillion": 1e12, "billionen": 1e12, "万": 1e4, "億": 1e8,
          "dozen": 12, "dozens": 12, "hundred": 100, "hundreds": 100, "hundert": 100, "cent": 100, "cents": 100,
          "сто": 100}
# Fractions written as words: alone ("a quarter") they are the fraction; after a number ("two
# thirds") they divide it.
FRACTIONS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5,
             "fifths": 5, "tenth": 10, "tenths": 10, "hälfte": 2, "drittel": 3, "viertel": 4, "moitié": 2,
             "tiers": 3, "quart": 4, "mitad": 2, "tercio": 3, "cuarto": 4, "половина": 2, "треть": 3,
             "четверть": 4}
# Small numbers spelled out ("one" and its kin are left out: far more often a pronoun or an
# article than a count).
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "twice": 2, "double": 2, "triple": 3, "pair": 2, "couple": 2,
    "second": 2, "fourth": 4, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "zwölf": 12, "zwanzig": 20, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8,
    "neuf": 9, "dix": 10, "douze": 12, "vingt": 20, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
    "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "doce": 12, "veinte": 20,
    "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8, "девять": 9,
    "десять": 10, "двенадцать": 12, "двадцать": 20,
}
# Words before a number that say it is rounded ("about 547", "nearly a quarter", "over 40").
HEDGES = frozenset(
    "about around approximately approx roughly nearly almost some over under circa ca c just some "
    "more than less fewer up to least most estimated an estimated close to roughly some ~ ≈ "
    "etwa rund ungefähr fast knapp über unter mehr als weniger circa gut environ près presque plus "
    "moins quelque aproximadamente casi unos unas cerca más menos около примерно почти более менее свыше "
    "порядка".split())
# The relative margin a rounded ("about") number is allowed: a tenth either way.
HEDGED_MARGIN = 0.1

_GROUPED = re.compile(r"^\d{1,3}(?:[.,\u00a0\u202f\u2009 '’]\d{3})+$")
_SPACES = "\u00a0\u202f\u2009 '’"


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number as written: ``values`` its readings (two for "1.642": a thousands group or
    decimals), after any scale word; ``half_steps`` half the step of the last written digit of
    each reading ("1.6 km": 0.05, the unit's); ``factor`` to its unit's base (1000 for km, 0.01
    for a per cent); ``dimension`` of its unit ("length", "ratio", "money:eur" ...; None for a
    bare number); ``hedged`` (a word before it says it is rounded); ``written`` the readings
    before a scale word ("14" of "€14 million": a calculator that worked in millions answers
    -14), with ``written_half_steps``."""

    values: tuple[float, ...]
    half_steps: tuple[float, ...]
    factor: float = 1.0
    dimension: str | None = None
    hedged: bool = False
    written: tuple[float, ...] = ()
    written_half_steps: tuple[float, ...] = ()

    @property
    def based(self) -> tuple[float, ...]:
        """The readings in the unit's base (metres, a ratio, seconds)."""
        return tuple(v * self.factor for v in self.values)


def unit_of(form: str) -> str | None:
    """The unit key of a written unit ("metres" -> "m", "Tagen" -> "day", "%" -> "%"), or None."""
    return _UNIT_FORMS.get(form.casefold())


def digits_values(text: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The readings of a number written in digits and the step of each one's last digit:
    "5,642" -> ((5642.0, 5.642), (1.0, 0.001)) — a single group of three after a comma or a point
    is a thousands group in one language and decimals in another, so both stand —; "5 642" and
    "1.233.000" are groups; "3,2" and "37.4" decimals; "13th" is 13. Raises ValueError for text
    with no digits."""
    text = re.sub(r"(st|nd|rd|th|er|e|ème|º|ª)$", "", text)
    if _GROUPED.match(text):
        separators = set(re.sub(r"\d", "", text))
        whole = float(re.sub(r"\D", "", text))
        if len(separators) == 1 and separators <= {",", "."} and text.count(next(iter(separators))) == 1:
            return (whole, float(text.replace(",", "."))), (1.0, 0.001)
        return (whole,), (1.0,)
    for spaced in _SPACES:
        text = text.replace(spaced, "")
    if "," in text and "." in text:  # 1,234.5 or 1.234,5: the last separator is the decimal one
        if text.rfind(",") > text.rfind("."):
            text = text.replace(".", "").replace(",", ".")
        else:
            text = text.replace(",", "")
    text = text.replace(",", ".")
    if text.count(".") > 1:
        text = text.replace(".", "", text.count(".") - 1)
    decimals = len(text.partition(".")[2])
    return (float(text),), (10.0 ** -decimals,)


@lru_cache(maxsize=4096)
def spelled_value(word: str, language: str) -> float | None:
    """The value of a number spelled as one word ("fourteen", "vierzehn", "quatorze"), by the
    table above, then by text2num for the languages it reads (de, fr, es, it, pt, nl, da); None
    for any other word."""
    folded = word.casefold()
    if folded in NUMBER_WORDS:
        return float(NUMBER_WORDS[folded])
    if language in _TEXT2NUM and len(folded) >= 4 and folded.isalpha():
        from text_to_num import text2num

        try:
            return float(text2num(folded, language))
        except (ValueError, TypeError):
            return None
    return None


_TEXT2NUM = {"de", "fr", "es", "it", "pt", "nl", "da", "en"}


def quantity(values: tuple[float, ...], steps: tuple[float, ...], unit: str | None, hedged: bool,
             scale: float = 1.0, rounded: bool = False) -> Quantity:
    """A ``Quantity`` of ``values`` (as written, before ``scale``), the step of each one's last
    digit, their ``unit`` key (or None), ``hedged``; ``rounded`` when the writer rounded (a hedge
    or a scale word), which makes the trailing zeros of a whole number part of its step ("about
    2,000" is 1,950 to 2,050)."""
    dimension, factor = UNITS.get(unit, (None, 1.0)) if unit else (None, 1.0)
    halves = []
    for value, step in zip(values, steps):
        step *= scale
        if rounded and step >= 1:
            whole = int(round(value * scale / step))
            while whole and whole % 10 == 0:
                whole //= 10
                step *= 10
        halves.append(step / 2)
    written = values if scale != 1.0 else ()
    return Quantity(tuple(v * scale for v in values), tuple(halves), factor, dimension, hedged, written,
                    tuple(s / 2 for s in steps) if written else ())


def agrees(claim: Quantity, found: Quantity) -> bool:
    """True when the number of a sentence (``claim``) says what a number of the evidence
    (``found``) says: the same value, or the evidence's value rounded to the step the claim is
    written to ("1.6 km" for 1642 m, "547" for 547.33), or within a tenth when either is hedged
    ("nearly a quarter" for 23 %); a change the evidence writes as negative ("-14") is said as a
    fall ("fell by 14"). Units must be of one dimension; a bare number is compared with the
    other's value as written and in its base ("834 m" and "834"), and with a claim's value before
    its scale word ("€14 million" and a calculator's "-14")."""
    if claim.dimension and found.dimension and claim.dimension != found.dimension:
        return False
    margin = HEDGED_MARGIN if claim.hedged or found.hedged else 0.0
    spaces = [(claim.factor, found.factor)] if claim.dimension and found.dimension else \
        [(1.0, 1.0), (claim.factor, 1.0), (1.0, found.factor)]
    readings = [(claim.values, claim.half_steps, a, b) for a, b in spaces]
    if claim.written and not found.dimension and not found.written:
        readings.append((claim.written, claim.written_half_steps, 1.0, 1.0))
    for values, halves, mine, theirs in readings:
        for a, half_a in zip(values, halves):
            for b, half_b in zip(found.values, found.half_steps):
                if _near(a * mine, b * theirs, max(half_a * mine, half_b * theirs), margin):
                    return True
    return False


def _near(a: float, b: float, tolerance: float, margin: float) -> bool:
    tolerance = max(tolerance, abs(b) * margin, 1e-9 * max(abs(a), abs(b), 1.0))
    return abs(a - b) <= tolerance or (b < 0 <= a and abs(a + b) <= tolerance)


def number_key(value: float) -> str:
    """The key of a number's value: "#5642", "#37.4", "#25000000"."""
    return "#" + (str(int(value)) if float(value).is_integer() else f"{value:g}")
