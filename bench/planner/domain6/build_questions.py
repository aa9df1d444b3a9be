import json
NOW = "2026-11-27T00:30:00Z"  # Fri 2026-11-27 09:30 KST
P, AS, AC, SS, SR, LB, IC = ("patient_lookup","appointment_search","appointment_create",
                             "supply_stock","supply_reorder","lab_case_track","insurance_claim_status")
Q = []
def q(lang, kind, query, tools, params=None):
    Q.append({"lang": lang, "kind": kind, "query": query, "tools": tools, "params": params or {}})

# ---------------- single: patient_lookup ----------------
q("ko","single","김도윤 환자 연락처 좀", [P], {"patient_lookup.query":"김도윤"})
q("ko","single","010-4821-7730 이 번호 누구 환자에요?", [P], {"patient_lookup.query":"010-4821-7730"})
q("ko","single","MP0104417 미수금 남은거 있나", [P], {"patient_lookup.query":"MP0104417"})
q("en","single","is Sarah Miller allergic to anything? about to give her lidocaine", [P], {"patient_lookup.query":"Sarah Miller"})
q("en","single","pull up Tanaka Yuki's chart pls", [P], {"patient_lookup.query":"Tanaka Yuki"})
q("en","single","when was MP0087310 last in? trying to work out if she's due for a recall", [P], {"patient_lookup.query":"MP0087310"})
q("en","single","whats the phone # on file for MP0031842", [P], {"patient_lookup.query":"MP0031842"})
q("ko","single","최민재 환자 보험 자격 뭘로 되어있어요? 의료급여였던거 같은데", [P], {"patient_lookup.query":"최민재"})
q("en","single","there are two Kim Jiwoos, I need the one born 1988-03-14 — what's her chart number?", [P],
  {"patient_lookup.query":"Kim Jiwoo","patient_lookup.birth_date":"1988-03-14"})

# ---------------- single: appointment_search ----------------
q("ko","single","오늘 강남점 예약 몇건이야?", [AS], {"appointment_search.branch":"GN","appointment_search.date":"2026-11-27"})
q("ko","single","한정우 원장님 낼 스케줄 어케 돼?", [AS], {"appointment_search.dentist":"한정우","appointment_search.date":"2026-11-28"})
q("en","single","any no shows at songdo yesterday?", [AS],
  {"appointment_search.branch":"SD","appointment_search.date":"2026-11-26","appointment_search.status":"no_show"})
q("ko","single","박하은 환자 다음 내원 언제로 잡혀있지", [AS], {"appointment_search.patient":"박하은"})
q("en","single","how many implant consults have we got at Yongsan on Monday", [AS],
  {"appointment_search.branch":"YS","appointment_search.date":"2026-11-30","appointment_search.treatment":"implant"})
q("ko","single","잠실 지금 접수해놓고 대기중인 환자 누구누구임?", [AS],
  {"appointment_search.branch":"JS","appointment_search.date":"2026-11-27","appointment_search.status":"checked_in"})
q("en","single","what does Dr. Emily Cho have today", [AS], {"appointment_search.dentist":"Emily Cho","appointment_search.date":"2026-11-27"})
q("ko","single","12/3 분당 교정환자 몇명 잡혀있어", [AS],
  {"appointment_search.branch":"BD","appointment_search.date":"2026-12-03","appointment_search.treatment":"ortho"})
q("ko","single","이번달 홍대점에서 취소된 예약들 쭉 뽑아줄래", [AS],
  {"appointment_search.branch":"HD","appointment_search.date":"2026-11-01","appointment_search.days":30,"appointment_search.status":"cancelled"})
q("en","single","MP0031842 had a scaling booked — is it still on?", [AS],
  {"appointment_search.patient":"MP0031842","appointment_search.treatment":"scaling"})
q("en","single","how packed is Ilsan on Tuesday? just need the number of appts", [AS],
  {"appointment_search.branch":"IS","appointment_search.date":"2026-12-01"})

# ---------------- single: appointment_create ----------------
q("ko","single","MP0031842 환자 12월 1일 오후 3시 강남점 스케일링으로 예약 부탁해요", [AC],
  {"appointment_create.patient_chart_no":"MP0031842","appointment_create.branch":"GN","appointment_create.date":"2026-12-01",
   "appointment_create.time":"15:00","appointment_create.treatment":"scaling"})
q("en","single","book MP0104417 into Yongsan tomorrow 10:30 for a regular checkup w/ Dr. Emily Cho", [AC],
  {"appointment_create.patient_chart_no":"MP0104417","appointment_create.branch":"YS","appointment_create.date":"2026-11-28",
   "appointment_create.time":"10:30","appointment_create.treatment":"checkup","appointment_create.dentist":"Emily Cho"})
q("ko","single","차트 MP0220951 신경치료 2차 내원 잡아야돼요. 다음주 화요일 오전 11시 분당, 한정우 원장님으로", [AC],
  {"appointment_create.patient_chart_no":"MP0220951","appointment_create.branch":"BD","appointment_create.date":"2026-12-01",
   "appointment_create.time":"11:00","appointment_create.treatment":"root_canal","appointment_create.dentist":"한정우"})
q("en","single","pls schedule whitening for MP0087310 at hongdae, dec 5 2pm, it's a 60 min session", [AC],
  {"appointment_create.patient_chart_no":"MP0087310","appointment_create.branch":"HD","appointment_create.date":"2026-12-05",
   "appointment_create.time":"14:00","appointment_create.treatment":"whitening","appointment_create.duration_min":60})
q("ko","single","MP0150066 사랑니 발치 30일 9시반 잠실로 넣어주세요", [AC],
  {"appointment_create.patient_chart_no":"MP0150066","appointment_create.branch":"JS","appointment_create.date":"2026-11-30",
   "appointment_create.time":"09:30","appointment_create.treatment":"extraction"})
q("en","single","Can you put MP0192283 in for an implant consult at Songdo on Wed Dec 2, 4pm?", [AC],
  {"appointment_create.patient_chart_no":"MP0192283","appointment_create.branch":"SD","appointment_create.date":"2026-12-02",
   "appointment_create.time":"16:00","appointment_create.treatment":"implant"})
q("ko","single","일산 내일 오전 10시 소아치과 진료 MP0311408 예약좀 잡아줘여", [AC],
  {"appointment_create.patient_chart_no":"MP0311408","appointment_create.branch":"IS","appointment_create.date":"2026-11-28",
   "appointment_create.time":"10:00","appointment_create.treatment":"pediatric"})
q("en","single","MP0047721 needs a braces adjustment, Bundang, Dec 4 at 5:30pm", [AC],
  {"appointment_create.patient_chart_no":"MP0047721","appointment_create.branch":"BD","appointment_create.date":"2026-12-04",
   "appointment_create.time":"17:30","appointment_create.treatment":"ortho"})

# ---------------- single: supply_stock ----------------
q("ko","single","강남점 마취제 얼마나 남았어?", [SS], {"supply_stock.branch":"GN","supply_stock.category":"anesthetic"})
q("en","single","which branches are running low on gloves and masks", [SS], {"supply_stock.category":"ppe","supply_stock.low_stock_only":True})
q("en","single","SUP-20417 how many left at jamsil", [SS], {"supply_stock.item_code":"SUP-20417","supply_stock.branch":"JS"})
q("ko","single","송도 발주점 밑으로 내려간 품목 있나요", [SS], {"supply_stock.branch":"SD","supply_stock.low_stock_only":True})
q("en","single","do we still have composite resin at Hongdae? the A2 shade specifically", [SS],
  {"supply_stock.branch":"HD","supply_stock.category":"composite_resin"})
q("ko","single","알지네이트 수원에 몇 개 있는지 확인 좀", [SS], {"supply_stock.branch":"SW","supply_stock.category":"impression_material"})
q("en","single","yongsan stock check on endo files", [SS], {"supply_stock.branch":"YS","supply_stock.category":"endo_files"})

# ---------------- single: supply_reorder ----------------
q("ko","single","SUP-10234 강남점으로 50개 발주 넣어줘", [SR],
  {"supply_reorder.item_code":"SUP-10234","supply_reorder.branch":"GN","supply_reorder.quantity":50})
q("en","single","urgent!! order 20 boxes of SUP-50991 for Songdo, we're almost out", [SR],
  {"supply_reorder.item_code":"SUP-50991","supply_reorder.branch":"SD","supply_reorder.quantity":20,"supply_reorder.urgency":"urgent"})
q("ko","single","잠실 SUP-20417 10개 급하게 주문해주세요 12/2까지는 와야돼요", [SR],
  {"supply_reorder.item_code":"SUP-20417","supply_reorder.branch":"JS","supply_reorder.quantity":10,
   "supply_reorder.urgency":"urgent","supply_reorder.needed_by":"2026-12-02"})
q("en","single","reorder SUP-31108 x30 for ilsan", [SR],
  {"supply_reorder.item_code":"SUP-31108","supply_reorder.branch":"IS","supply_reorder.quantity":30})
q("ko","single","분당점 SUP-40052 15개 주문 부탁드려요. 급한건 아니에요", [SR],
  {"supply_reorder.item_code":"SUP-40052","supply_reorder.branch":"BD","supply_reorder.quantity":15,"supply_reorder.urgency":"normal"})
q("en","single","Put in a request for 100 of SUP-50991 for Yongsan, need them by Dec 4", [SR],
  {"supply_reorder.item_code":"SUP-50991","supply_reorder.branch":"YS","supply_reorder.quantity":100,"supply_reorder.needed_by":"2026-12-04"})
q("ko","single","홍대 SUP-62017 다섯 개 발주요", [SR],
  {"supply_reorder.item_code":"SUP-62017","supply_reorder.branch":"HD","supply_reorder.quantity":5})

# ---------------- single: lab_case_track ----------------
q("ko","single","LB26-01873 도착 예정일 알려줘", [LB], {"lab_case_track.case_no":"LB26-01873"})
q("en","single","gangnam - any cases the lab has to redo?", [LB], {"lab_case_track.branch":"GN","lab_case_track.status":"remake"})
q("ko","single","김도윤 환자 크라운 기공소에서 출발했대?", [LB], {"lab_case_track.patient":"김도윤","lab_case_track.prosthesis":"crown"})
q("en","single","what lab work is due back by Monday at Bundang", [LB], {"lab_case_track.branch":"BD","lab_case_track.due_by":"2026-11-30"})
q("ko","single","잠실 투명교정 장치 도착한거 있어?", [LB],
  {"lab_case_track.branch":"JS","lab_case_track.prosthesis":"clear_aligner","lab_case_track.status":"delivered"})
q("en","single","status of LB26-02210?", [LB], {"lab_case_track.case_no":"LB26-02210"})
q("ko","single","송도 아직 만들고 있는 브릿지 케이스들 뭐뭐야", [LB],
  {"lab_case_track.branch":"SD","lab_case_track.prosthesis":"bridge","lab_case_track.status":"in_production"})
q("en","single","Sarah Miller's night guard - has it shipped yet", [LB],
  {"lab_case_track.patient":"Sarah Miller","lab_case_track.prosthesis":"night_guard"})
q("ko","single","기한 넘었는데 아직 안 온 기공물 전체 리스트", [LB], {"lab_case_track.overdue_only":True})

# ---------------- single: insurance_claim_status ----------------
q("ko","single","10월 강남점 청구 삭감된거 보여줘", [IC],
  {"insurance_claim_status.claim_month":"2026-10","insurance_claim_status.branch":"GN","insurance_claim_status.status":"reduced"})
q("ko","single","CLM2610004512 심사 어디까지 갔나요", [IC], {"insurance_claim_status.claim_id":"CLM2610004512"})
q("en","single","how many claims got bounced back for Yongsan last month", [IC],
  {"insurance_claim_status.claim_month":"2026-10","insurance_claim_status.branch":"YS","insurance_claim_status.status":"returned"})
q("en","single","claim history for patient MP0031842", [IC], {"insurance_claim_status.patient_chart_no":"MP0031842"})
q("en","single","songdo september claims - anything still being reviewed by HIRA?", [IC],
  {"insurance_claim_status.claim_month":"2026-09","insurance_claim_status.branch":"SD","insurance_claim_status.status":"reviewing"})
q("ko","single","지난달 수원 반송 몇건?", [IC],
  {"insurance_claim_status.claim_month":"2026-10","insurance_claim_status.branch":"SW","insurance_claim_status.status":"returned"})
q("en","single","show me hongdae's claims for october", [IC],
  {"insurance_claim_status.claim_month":"2026-10","insurance_claim_status.branch":"HD"})

# ---------------- multi ----------------
q("ko","multi","이서준 환자 내일 오후 2시 강남점 충치치료 예약 잡아줘", [P, AC],
  {"patient_lookup.query":"이서준","appointment_create.branch":"GN","appointment_create.date":"2026-11-28",
   "appointment_create.time":"14:00","appointment_create.treatment":"filling"})
q("en","multi","find John Park and book him a cleaning at Yongsan Dec 2, 11am", [P, AC],
  {"patient_lookup.query":"John Park","appointment_create.branch":"YS","appointment_create.date":"2026-12-02",
   "appointment_create.time":"11:00","appointment_create.treatment":"scaling"})
q("ko","multi","강남 마취제 재고 보고 모자라면 SUP-10234 30개 발주까지 해줘", [SS, SR],
  {"supply_stock.branch":"GN","supply_stock.category":"anesthetic",
   "supply_reorder.item_code":"SUP-10234","supply_reorder.branch":"GN","supply_reorder.quantity":30})
q("en","multi","check SUP-50991 at Songdo and order 40 more if it's under the reorder level", [SS, SR],
  {"supply_stock.item_code":"SUP-50991","supply_stock.branch":"SD",
   "supply_reorder.item_code":"SUP-50991","supply_reorder.branch":"SD","supply_reorder.quantity":40})
q("ko","multi","박하은 환자 인적사항이랑 잡혀있는 예약 같이 보여줘요", [P, AS],
  {"patient_lookup.query":"박하은","appointment_search.patient":"박하은"})
q("en","multi","Tanaka Yuki - is her crown back from the lab yet, and when is she coming in next?", [LB, AS],
  {"lab_case_track.patient":"Tanaka Yuki","lab_case_track.prosthesis":"crown","appointment_search.patient":"Tanaka Yuki"})
q("ko","multi","LB26-01955 도착했으면 MP0047721 환자 12월 3일 오전 10시 분당으로 보철 세팅 예약 잡아줘", [LB, AC],
  {"lab_case_track.case_no":"LB26-01955","appointment_create.patient_chart_no":"MP0047721","appointment_create.branch":"BD",
   "appointment_create.date":"2026-12-03","appointment_create.time":"10:00","appointment_create.treatment":"prosthetic"})
q("ko","multi","오늘 잠실 예약환자들 미수금 있는 사람 있는지 봐줘", [AS, P],
  {"appointment_search.branch":"JS","appointment_search.date":"2026-11-27"})
q("ko","multi","10월 강남 삭감건 뽑고 해당 환자들 연락처도 같이", [IC, P],
  {"insurance_claim_status.claim_month":"2026-10","insurance_claim_status.branch":"GN","insurance_claim_status.status":"reduced"})
q("en","multi","show me MP0104417's insurance claims and what they still owe us", [IC, P],
  {"insurance_claim_status.patient_chart_no":"MP0104417","patient_lookup.query":"MP0104417"})
q("ko","multi","송도점 재고 부족한거랑 기공물 늦어지는거 한번에 정리 부탁", [SS, LB],
  {"supply_stock.branch":"SD","supply_stock.low_stock_only":True,"lab_case_track.branch":"SD","lab_case_track.overdue_only":True})
q("en","multi","Bundang - tomorrow's appointments, plus any lab cases due by tomorrow", [AS, LB],
  {"appointment_search.branch":"BD","appointment_search.date":"2026-11-28","lab_case_track.branch":"BD","lab_case_track.due_by":"2026-11-28"})
q("ko","multi","정예린 환자 찾아서 다음주 월요일 오후 4시 홍대 미백 예약 넣어줘", [P, AC],
  {"patient_lookup.query":"정예린","appointment_create.branch":"HD","appointment_create.date":"2026-11-30",
   "appointment_create.time":"16:00","appointment_create.treatment":"whitening"})
q("en","multi","who no-showed at gangnam today? need their numbers so we can call them", [AS, P],
  {"appointment_search.branch":"GN","appointment_search.date":"2026-11-27","appointment_search.status":"no_show"})
q("ko","multi","잠실 SUP-20417 재고랑 월요일 임플란트 수술 예약 몇개인지 같이", [SS, AS],
  {"supply_stock.item_code":"SUP-20417","supply_stock.branch":"JS",
   "appointment_search.branch":"JS","appointment_search.date":"2026-11-30","appointment_search.treatment":"implant"})
q("en","multi","ilsan: what's low on stock? also reorder SUP-31108 x25, urgent", [SS, SR],
  {"supply_stock.branch":"IS","supply_stock.low_stock_only":True,
   "supply_reorder.item_code":"SUP-31108","supply_reorder.branch":"IS","supply_reorder.quantity":25,"supply_reorder.urgency":"urgent"})
q("ko","multi","최민재님 의료급여 자격이랑 그분 청구건 처리상태 확인해줘", [P, IC], {"patient_lookup.query":"최민재"})
q("ko","multi","MP0192283 환자 기본정보, 예약, 기공물 현황 싹 다", [P, AS, LB],
  {"patient_lookup.query":"MP0192283","appointment_search.patient":"MP0192283","lab_case_track.patient":"MP0192283"})
q("ko","multi","용산 오늘 예약 현황이랑 마취제 재고 같이 봐줘", [AS, SS],
  {"appointment_search.branch":"YS","appointment_search.date":"2026-11-27","supply_stock.branch":"YS","supply_stock.category":"anesthetic"})
q("en","multi","book MP0087310 for a crown prep at hongdae dec 7 1pm, and check whether LB26-02210 came in", [AC, LB],
  {"appointment_create.patient_chart_no":"MP0087310","appointment_create.branch":"HD","appointment_create.date":"2026-12-07",
   "appointment_create.time":"13:00","appointment_create.treatment":"prosthetic","lab_case_track.case_no":"LB26-02210"})
q("en","multi","suwon: how many no-shows yesterday, and how many september claims were returned?", [AS, IC],
  {"appointment_search.branch":"SW","appointment_search.date":"2026-11-26","appointment_search.status":"no_show",
   "insurance_claim_status.claim_month":"2026-09","insurance_claim_status.branch":"SW","insurance_claim_status.status":"returned"})
q("en","multi","order 10 of SUP-20417 for Songdo and book MP0192283's implant surgery there Dec 9 at 9am", [SR, AC],
  {"supply_reorder.item_code":"SUP-20417","supply_reorder.branch":"SD","supply_reorder.quantity":10,
   "appointment_create.patient_chart_no":"MP0192283","appointment_create.branch":"SD","appointment_create.date":"2026-12-09",
   "appointment_create.time":"09:00","appointment_create.treatment":"implant"})
q("en","multi","list Dr. Han Jungwoo's patients for today along with any allergies they have", [AS, P],
  {"appointment_search.dentist":"Han Jungwoo","appointment_search.date":"2026-11-27"})
q("ko","multi","김도윤 환자 크라운 왔는지 보고, 왔으면 다음주 목요일 오후 2시 강남으로 세팅 잡아줘", [LB, P, AC],
  {"lab_case_track.patient":"김도윤","lab_case_track.prosthesis":"crown","patient_lookup.query":"김도윤",
   "appointment_create.branch":"GN","appointment_create.date":"2026-12-03","appointment_create.time":"14:00",
   "appointment_create.treatment":"prosthetic"})

q("en","multi","gangnam's short on fixtures I think - check the implant fixture stock there and put in an urgent order for 12 x SUP-20417", [SS, SR],
  {"supply_stock.branch":"GN","supply_stock.category":"implant_fixture",
   "supply_reorder.item_code":"SUP-20417","supply_reorder.branch":"GN","supply_reorder.quantity":12,"supply_reorder.urgency":"urgent"})
q("en","multi","Lee Hana (MP0275530) is asking about her bridge and her october insurance claim, can you check both", [LB, IC],
  {"lab_case_track.patient":"MP0275530","lab_case_track.prosthesis":"bridge",
   "insurance_claim_status.patient_chart_no":"MP0275530","insurance_claim_status.claim_month":"2026-10"})

# ---------------- none (domain / general) ----------------
q("ko","none","MP0031842 내일 예약 취소 좀 해주세요", [])
q("ko","none","아까 넣은 SUP-10234 발주 취소할 수 있어?", [])
q("ko","none","이번달 내 급여명세서 좀 보여줘", [])
q("ko","none","진료 지연돼서 환자분들께 보낼 사과 문자 초안 써줄래?", [])
q("ko","none","오늘 점심 뭐 먹지 ㅋㅋ", [])
q("ko","none","나 연차 몇일 남았어?", [])
q("ko","none","MP0220951 중복 차트라서 삭제해야 돼요", [])
q("ko","none","감사합니다 수고하셨어요~", [])
q("ko","none","정예린님 예약 3시에서 4시로 옮겨줘", [])
q("en","none","cancel sarah miller's appt tomorrow", [])
q("en","none","how do you say 'don't eat anything for 2 hours after the filling' in Japanese?", [])
q("en","none","refund the deposit MP0104417 paid last week", [])
q("en","none","hey, how's your day going", [])
q("en","none","write a short friendly text reminding a patient to bring their insurance card", [])
q("en","none","how much is my year-end bonus going to be this year?", [])
q("en","none","what's the weather like in songdo this afternoon", [])
q("en","none","merge charts MP0150066 and MP0150067, same person", [])
q("en","none","send a recall text to every patient who's overdue for a cleaning", [])

# ---------------- infrastructure / IT ----------------
q("ko","single","EMR 서버들 지난주 CPU 제일 높았던거 top5", ["metric_query"])
q("ko","single","어제 예약 시스템 장애 난거 있어? 이력 좀", ["history_query"])
q("ko","single","PACS 서버 죽으면 어디까지 영향 가요?", ["graph_analysis"])
q("ko","single","운영 DB 서버 목록 좀 보여줘", ["ci_lookup"])
q("ko","single","EMR 백업 실패했을때 대응 절차 런북 찾아줘", ["document_search"])
q("ko","single","우리 코드에서 본인부담금 계산하는 로직 어디 있어?", ["search_vector_db"])
q("ko","none","제 PC 윈도우 비밀번호 초기화 해주세요", [])
q("en","single","if I change the ClaimBatchExporter class what else breaks? transitive callers + subclasses", ["code_graph"])
q("en","single","look up AppointmentService in the code graph, what does it import and inherit from", ["search_graph_db"])
q("en","single","what got deployed to the booking api this week?", ["history_query"])
q("en","single","show the dependency chain for the lab-portal integration service", ["graph_analysis"])
q("en","none","outlook keeps crashing on my laptop, can u fix it", [])
q("en","none","reboot the check-in kiosk at the gangnam front desk", [])

import random
random.Random(6).shuffle(Q)
for i, x in enumerate(Q, 1):
    x["id"] = f"q{i:03d}"
# reorder keys
out = []
for x in Q:
    out.append({"id": x["id"], "lang": x["lang"], "kind": x["kind"], "query": x["query"], "tools": x["tools"], "params": x["params"]})
doc = {"now": NOW,
       "domain": "MisoPlus Dental Group (미소플러스치과 네트워크): 8-branch dental clinic chain in Seoul/Gyeonggi/Incheon; staff = front desk, dental hygienists, dentists, 원무/claims team, purchasing. All times KST (now = Fri 2026-11-27 09:30 KST).",
       "questions": out}
json.dump(doc, open("/work/set6/questions.json","w"), ensure_ascii=False, indent=2)
print(len(out))
