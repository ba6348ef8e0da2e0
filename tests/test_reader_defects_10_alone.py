"""Files that this session's rules must leave as they were read before (a reviewer's
false positives): each is read to the same rankings, or refused, as before the rules."""
# ruff: noqa: E501 - the files as written, one a line

import pytest

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import read_file

CASES = {
    'r15_diving_rounds': (b'Event,Diver,Country,R1,R2,R3,R4,R5,Total\n3m Springboard Prelim,Chen Yiwen,CHN,72.00,76.50,70.50,81.60,78.00,378.60\n3m Springboard Prelim,Chang Yani,CHN,70.50,74.40,75.00,79.05,72.00,370.95\n3m Springboard Prelim,Maddison Keeney,AUS,69.00,70.50,63.00,72.00,74.40,348.90\n3m Springboard Prelim,Sarah Bacon,USA,66.00,67.50,68.20,70.50,73.50,345.70\n3m Springboard Final,Chang Yani,CHN,73.50,75.00,76.50,80.60,79.50,385.10\n3m Springboard Final,Chen Yiwen,CHN,72.00,73.50,69.00,78.00,77.50,370.00\n3m Springboard Final,Sarah Bacon,USA,70.50,69.00,71.30,72.00,75.00,357.80\n3m Springboard Final,Maddison Keeney,AUS,64.50,68.20,70.50,66.00,70.50,339.70\n',
        None, 0),
    'k11_wide_universities_uwi': (b'Voter,1st choice,2nd choice,3rd choice\nV1,NUS,UNAM,McGill\nV2,UWI,UNAM,NUS\nV3,UNAM,McGill,UCT\nV4,UCT,NUS,McGill\nV5,UWI,UNAM,McGill\nV6,UNAM,UWI,NUS\nV7,UWI,NUS,UNAM\nV8,McGill,NUS,UWI\nV9,UCT,UWI,NUS\nV10,UCT,NUS,UNAM\n',
        [['NUS', 'UNAM', 'McGill'], ['UWI', 'UNAM', 'NUS'], ['UNAM', 'McGill', 'UCT'], ['UCT', 'NUS', 'McGill'], ['UWI', 'UNAM', 'McGill'], ['UNAM', 'UWI', 'NUS']], 10),
    'k17_assign_points_1_most_important': (b'Respondent,Please assign points from 1 (most important) to 5 (least important) [Price],Please assign points from 1 (most important) to 5 (least important) [Quality],Please assign points from 1 (most important) to 5 (least important) [Delivery],Please assign points from 1 (most important) to 5 (least important) [Support],Please assign points from 1 (most important) to 5 (least important) [Warranty]\nR1,5,3,4,2,1\nR2,4,2,5,1,3\nR3,1,2,5,4,3\nR4,3,5,2,1,4\nR5,1,4,2,5,3\nR6,3,4,1,2,5\nR7,5,4,3,1,2\nR8,2,4,5,3,1\n',
        [['Warranty', 'Support', 'Quality', 'Delivery', 'Price'], ['Support', 'Quality', 'Warranty', 'Price', 'Delivery'], ['Price', 'Quality', 'Warranty', 'Support', 'Delivery'], ['Support', 'Delivery', 'Price', 'Warranty', 'Quality'], ['Price', 'Delivery', 'Warranty', 'Quality', 'Support'], ['Delivery', 'Support', 'Price', 'Quality', 'Warranty']], 8),
    'r06_hash_lane_order': (b'Heat,#,Swimmer,Club,Time\nHeat 1,1,Ava Reid,Dolphins,1:05.32\nHeat 1,2,Isla Kerr,Sharks,1:02.10\nHeat 1,3,Maya Cole,Marlins,1:04.01\nHeat 1,4,Ruby Shaw,Dolphins,1:01.77\nHeat 1,5,Zoe Hunt,Sharks,1:03.45\nHeat 2,1,Lily Ford,Marlins,1:06.20\nHeat 2,2,Ella Park,Dolphins,1:00.98\nHeat 2,3,Amy Lowe,Sharks,1:02.87\nHeat 2,4,Iris West,Marlins,1:04.55\nHeat 2,5,Cara Bell,Dolphins,1:03.12\nFinal,1,Iris West,Marlins,1:03.90\nFinal,2,Ruby Shaw,Dolphins,1:01.02\nFinal,3,Ella Park,Dolphins,1:00.55\nFinal,4,Isla Kerr,Sharks,1:01.80\nFinal,5,Amy Lowe,Sharks,1:02.33\n',
        [['Ruby Shaw', 'Isla Kerr', 'Zoe Hunt', 'Maya Cole', 'Ava Reid'], ['Ella Park', 'Amy Lowe', 'Cara Bell', 'Iris West', 'Lily Ford'], ['Ella Park', 'Ruby Shaw', 'Isla Kerr', 'Amy Lowe', 'Iris West']], 3),
    'k04_ranks_items_form_points': (b'Manager,Form,Points,Wins,Fixtures,Price\nAhmed,2,3,1,4,5\nBeth,5,3,4,2,1\nCiaran,4,5,3,1,2\nDina,4,3,1,2,5\nEli,2,4,5,1,3\nFran,2,4,3,1,5\n',
        [['Wins', 'Form', 'Points', 'Fixtures', 'Price'], ['Price', 'Fixtures', 'Points', 'Wins', 'Form'], ['Fixtures', 'Price', 'Wins', 'Form', 'Points'], ['Wins', 'Fixtures', 'Points', 'Form', 'Price'], ['Fixtures', 'Form', 'Price', 'Points', 'Wins'], ['Fixtures', 'Form', 'Wins', 'Points', 'Price']], 6),
    'r10_windband_sections': (b'Saturday 11 May 2024\nWind Band - Junior\nPlace,Band,Conductor,Points\n1,Ashford Youth Winds,K. Patel,92\n2,Brookside School Band,L. Moore,89\n3,Carlton Academy Winds,R. Singh,85\n4,Dunmore Youth Band,T. Walsh,81\n\nSaturday 11 May 2024\nWind Band - Senior\nPlace,Band,Conductor,Points\n1,Carlton Academy Winds,R. Singh,94\n2,Ashford Youth Winds,K. Patel,90\n3,Dunmore Youth Band,T. Walsh,88\n4,Brookside School Band,L. Moore,80\n\nSunday 12 May 2024\nConcert Band - Open\nPlace,Band,Conductor,Points\n1,Brookside School Band,L. Moore,91\n2,Dunmore Youth Band,T. Walsh,87\n3,Ashford Youth Winds,K. Patel,86\n4,Carlton Academy Winds,R. Singh,79\n',
        [['Ashford Youth Winds', 'Brookside School Band', 'Carlton Academy Winds', 'Dunmore Youth Band'], ['Carlton Academy Winds', 'Ashford Youth Winds', 'Dunmore Youth Band', 'Brookside School Band'], ['Brookside School Band', 'Dunmore Youth Band', 'Ashford Youth Winds', 'Carlton Academy Winds']], 3),
    'r05_reaction_time_contest': (b'Session,Participant,Reaction Time (ms)\nMorning,P01,231\nMorning,P02,198\nMorning,P03,265\nMorning,P04,244\nMorning,P05,210\nAfternoon,P01,225\nAfternoon,P02,205\nAfternoon,P03,259\nAfternoon,P04,238\nAfternoon,P05,215\nEvening,P01,240\nEvening,P02,201\nEvening,P03,270\nEvening,P04,233\nEvening,P05,219\n',
        [['P02', 'P05', 'P01', 'P04', 'P03'], ['P02', 'P05', 'P01', 'P04', 'P03'], ['P02', 'P05', 'P04', 'P01', 'P03']], 3),
    'k07_peer_ranking_square_dash': (b',Aiko,Bruno,Chidi,Dara,Elif\nAiko,-,2,3,1,4\nBruno,4,-,2,3,1\nChidi,1,2,-,4,3\nDara,1,2,3,-,4\nElif,4,2,1,3,-\n',
        [['Dara', 'Bruno', 'Chidi', 'Elif'], ['Elif', 'Chidi', 'Dara', 'Aiko'], ['Aiko', 'Bruno', 'Elif', 'Dara'], ['Aiko', 'Bruno', 'Chidi', 'Elif'], ['Chidi', 'Bruno', 'Dara', 'Aiko']], 5),
    'c01_delphi_long_rounds_excluded': (b'Round,Voter,Item,Rank,Status\n1,E01,IT systems,1,Excluded\n1,E01,Training,2,Retained\n1,E01,Funding,3,Retained\n1,E01,Telehealth,4,Retained\n1,E01,Staffing,5,Retained\n1,E02,Training,1,Retained\n1,E02,Funding,2,Retained\n1,E02,Telehealth,3,Retained\n1,E02,IT systems,4,Excluded\n1,E02,Staffing,5,Retained\n1,E03,IT systems,1,Excluded\n1,E03,Training,2,Retained\n1,E03,Telehealth,3,Retained\n1,E03,Funding,4,Retained\n1,E03,Staffing,5,Retained\n1,E04,Telehealth,1,Retained\n1,E04,Staffing,2,Retained\n1,E04,IT systems,3,Excluded\n1,E04,Training,4,Retained\n1,E04,Funding,5,Retained\n1,E05,Telehealth,1,Retained\n1,E05,IT systems,2,Excluded\n1,E05,Staffing,3,Retained\n1,E05,Training,4,Retained\n1,E05,Funding,5,Retained\n2,E01,Funding,1,Retained\n2,E01,Training,2,Retained\n2,E01,Telehealth,3,Retained\n2,E01,Staffing,4,Retained\n2,E02,Training,1,Retained\n2,E02,Staffing,2,Retained\n2,E02,Telehealth,3,Retained\n2,E02,Funding,4,Retained\n2,E03,Funding,1,Retained\n2,E03,Staffing,2,Retained\n2,E03,Telehealth,3,Retained\n2,E03,Training,4,Retained\n2,E04,Funding,1,Retained\n2,E04,Telehealth,2,Retained\n2,E04,Staffing,3,Retained\n2,E04,Training,4,Retained\n2,E05,Telehealth,1,Retained\n2,E05,Staffing,2,Retained\n2,E05,Funding,3,Retained\n2,E05,Training,4,Retained\n',
        [['IT systems', 'Training', 'Funding', 'Telehealth', 'Staffing'], ['Training', 'Funding', 'Telehealth', 'IT systems', 'Staffing'], ['IT systems', 'Training', 'Telehealth', 'Funding', 'Staffing'], ['Telehealth', 'Staffing', 'IT systems', 'Training', 'Funding'], ['Telehealth', 'IT systems', 'Staffing', 'Training', 'Funding'], ['Funding', 'Training', 'Telehealth', 'Staffing']], 10),
    'c02_ranks_items_stage_n': (b'Voter,Stage 1,Stage 2,Stage 3,Stage 4\nVoter 1,1,2,3,4\nVoter 2,3,1,2,4\nVoter 3,2,3,1,4\nVoter 4,4,1,3,2\nVoter 5,4,3,2,1\nVoter 6,4,3,1,2\nVoter 7,2,3,1,4\n',
        [['Stage 1', 'Stage 2', 'Stage 3', 'Stage 4'], ['Stage 2', 'Stage 3', 'Stage 1', 'Stage 4'], ['Stage 3', 'Stage 1', 'Stage 2', 'Stage 4'], ['Stage 2', 'Stage 4', 'Stage 3', 'Stage 1'], ['Stage 4', 'Stage 3', 'Stage 2', 'Stage 1'], ['Stage 3', 'Stage 4', 'Stage 2', 'Stage 1']], 7),
    'k02_ranks_ties_last_item': (b'Judge,Cabernet,Pinot Noir,Syrah,Zinfandel,Merlot\nAlice,1,2,3,4,2\nBob,2,1,4,3,3\nCarol,1,3,2,4,1\n',
        [['Cabernet', ['Merlot', 'Pinot Noir'], 'Syrah', 'Zinfandel'], ['Pinot Noir', 'Cabernet', ['Merlot', 'Zinfandel'], 'Syrah'], [['Cabernet', 'Merlot'], 'Syrah', 'Pinot Noir', 'Zinfandel']], 3),
    'p01_wrestling_dq_win': (b'bout,wrestler_a,wrestler_b,score_a,score_b,winner\n1,Dake,Burroughs,5,3,Dake\n2,Taylor,Cox,DQ,0,Cox\n3,Snyder,Cox,4,2,Snyder\n4,Dake,Taylor,2,6,Taylor\n5,Burroughs,Snyder,3,DQ,Burroughs\n6,Cox,Dake,1,4,Dake\n7,Taylor,Snyder,7,5,Taylor\n8,Burroughs,Cox,2,2,Cox\n',
        [['Dake', 'Burroughs'], ['Cox', 'Taylor'], ['Snyder', 'Cox'], ['Taylor', 'Dake'], ['Burroughs', 'Snyder'], ['Dake', 'Cox']], 8),
    'o01_wide_top2_unanimous_first': (b'voter,first,second\nAnn,Haaland,Saka\nAnn,Haaland,Salah\nAnn,Haaland,Son\nBo,Haaland,Palmer\nBo,Haaland,Saka\nBo,Haaland,Saka\nCy,Haaland,Son\nCy,Haaland,Son\nCy,Haaland,Saka\n',
        [['Haaland', 'Saka'], ['Haaland', 'Salah'], ['Haaland', 'Son'], ['Haaland', 'Palmer'], ['Haaland', 'Saka'], ['Haaland', 'Saka']], 9),
    'd02_entry_version_items': (b'Entry,1st,2nd,3rd\nAna,2.1,1.9,3.0\nBen,1.9,2.1,3.0\nCai,3.0,2.1,1.9\nDee,2.1,3.0,1.9\n',
        [['2.1', '1.9', '3.0'], ['1.9', '2.1', '3.0'], ['3.0', '2.1', '1.9'], ['2.1', '3.0', '1.9']], 4),
    'r27_hash_rowno_with_place': (b'Race,#,Runner,Club,Place\n5K Spring,1,Ali Demir,Harriers,3\n5K Spring,2,Bea Kovacs,Striders,1\n5K Spring,3,Cem Yilmaz,Harriers,4\n5K Spring,4,Dov Peretz,Road Runners,2\n10K Summer,1,Ali Demir,Harriers,2\n10K Summer,2,Bea Kovacs,Striders,4\n10K Summer,3,Cem Yilmaz,Harriers,1\n10K Summer,4,Dov Peretz,Road Runners,3\n',
        [['Bea Kovacs', 'Dov Peretz', 'Ali Demir', 'Cem Yilmaz'], ['Cem Yilmaz', 'Ali Demir', 'Dov Peretz', 'Bea Kovacs']], 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_files_the_new_rules_must_leave_alone(name):
    data, first, count = CASES[name]
    if first is None:
        with pytest.raises(PreferenceFormatError):
            read_file(data)
        return
    lists = read_file(data).preferences.to_lists(names=True)
    lists = [[sorted(x) if isinstance(x, frozenset) else x for x in row] for row in lists]
    assert lists[:6] == first and len(lists) == count
